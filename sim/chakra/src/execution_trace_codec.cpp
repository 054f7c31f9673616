// The execution trace's bytes through the generated protobuf messages (chakra_et.proto). Built when protobuf is
// found; execution_trace_unavailable.cpp stands in otherwise.
#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <limits>
#include <utility>
#include <vector>

#include "chakra_et.pb.h"
#include "syncsim/chakra/execution_trace.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim::chakra {

namespace {

namespace et = syncsim::chakra_et;
using google::protobuf::io::ArrayInputStream;
using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;
using google::protobuf::io::StringOutputStream;

// Attribute names: Chakra's feeder's, and syncsim's own (execution_trace.hpp has the table).
constexpr const char* kCommType = "comm_type";
constexpr const char* kCommSize = "comm_size";
constexpr const char* kIsCpuOp = "is_cpu_op";
constexpr const char* kNumOps = "num_ops";
constexpr const char* kTensorSize = "tensor_size";
constexpr const char* kPgName = "pg_name";
constexpr const char* kDurationPs = "syncsim_duration_ps";
constexpr const char* kCommSrc = "comm_src";
constexpr const char* kCommDst = "comm_dst";
constexpr const char* kCommTag = "comm_tag";
constexpr const char* kInvolvedDim = "involved_dim";
constexpr const char* kMicroBatch = "syncsim_micro_batch";
constexpr const char* kChunk = "syncsim_chunk";
constexpr const char* kBackwardPass = "syncsim_backward";
constexpr const char* kRecomputePs = "syncsim_recompute_ps";
constexpr const char* kBucket = "syncsim_bucket";
constexpr const char* kOverlapPs = "syncsim_overlap_ps";
constexpr const char* kOverlapMethod = "syncsim_overlap_method";
constexpr const char* kOverlapSms = "syncsim_overlap_sms";
constexpr const char* kWorkload = "syncsim_workload";
constexpr const char* kRank = "syncsim_rank";
constexpr const char* kRanks = "syncsim_ranks";

void add_int(google::protobuf::RepeatedPtrField<et::AttributeProto>& attrs, const char* name, std::int64_t value) {
  et::AttributeProto* a = attrs.Add();
  a->set_name(name);
  a->set_int64_val(value);
}

void add_bool(google::protobuf::RepeatedPtrField<et::AttributeProto>& attrs, const char* name, bool value) {
  et::AttributeProto* a = attrs.Add();
  a->set_name(name);
  a->set_bool_val(value);
}

void write_delimited(const google::protobuf::MessageLite& message, CodedOutputStream& out) {
  out.WriteVarint64(message.ByteSizeLong());
  message.SerializeWithCachedSizes(&out);
}

// Fills `m` with node `n`. A message cleared and filled again keeps the attributes and strings it had allocated, so
// writing a trace node after node reuses one message's memory (a layout's export writes millions of nodes).
void fill_message(const ExecutionNode& n, et::Node& m) {
  m.Clear();
  m.set_id(n.id);
  m.set_name(n.name);
  m.set_type(static_cast<et::NodeType>(n.kind));
  for (const std::uint64_t d : n.ctrl_deps) m.add_ctrl_deps(d);
  for (const std::uint64_t d : n.data_deps) m.add_data_deps(d);
  m.set_duration_micros(n.duration_micros);
  if (!n.inputs_values.empty()) m.mutable_inputs()->set_values(n.inputs_values);
  add_bool(*m.mutable_attr(), kIsCpuOp, n.is_cpu_op);
  if (n.collective) add_int(*m.mutable_attr(), kCommType, static_cast<std::int64_t>(*n.collective));
  if (n.comm_size) add_int(*m.mutable_attr(), kCommSize, *n.comm_size);
  if (n.duration_ps) add_int(*m.mutable_attr(), kDurationPs, *n.duration_ps);
  if (n.num_ops) add_int(*m.mutable_attr(), kNumOps, *n.num_ops);
  if (n.tensor_size) {
    et::AttributeProto* a = m.add_attr();
    a->set_name(kTensorSize);
    a->set_uint64_val(*n.tensor_size);  // uint64, as Chakra's feeder reads it
  }
  if (n.pg_name) {
    et::AttributeProto* a = m.add_attr();
    a->set_name(kPgName);
    a->set_string_val(*n.pg_name);
  }
  // A transfer's peers and tag as int32, the type Chakra's feeder (et_feeder_node.cpp) reads them as: an int64 there
  // reads as 0 (FeederV3 converts either).
  for (const auto& [name, value] :
       {std::pair{kCommSrc, &n.comm_src}, std::pair{kCommDst, &n.comm_dst}, std::pair{kCommTag, &n.comm_tag}}) {
    if (!*value) continue;
    if (**value >= std::numeric_limits<std::int32_t>::min() && **value <= std::numeric_limits<std::int32_t>::max()) {
      et::AttributeProto* a = m.add_attr();
      a->set_name(name);
      a->set_int32_val(static_cast<std::int32_t>(**value));
    } else {
      add_int(*m.mutable_attr(), name, **value);
    }
  }
  const std::pair<const char*, const std::optional<std::int64_t>*> ints[] = {
      {kMicroBatch, &n.micro_batch}, {kChunk, &n.chunk},          {kRecomputePs, &n.recompute_ps},
      {kBucket, &n.bucket},          {kOverlapPs, &n.overlap_ps}, {kOverlapMethod, &n.overlap_method},
      {kOverlapSms, &n.overlap_sms}};
  for (const auto& [name, value] : ints) {
    if (*value) add_int(*m.mutable_attr(), name, **value);
  }
  if (n.backward) add_bool(*m.mutable_attr(), kBackwardPass, *n.backward);
}

// Reads the node's and the metadata's attributes; `where` names the message in errors.
class AttributeReader {
 public:
  AttributeReader(const std::string& source, std::string where) : source_(source), where_(std::move(where)) {}

  // Any integer field (writers differ: PyTorch's converter int64, others int32 or uint32), as long as it fits.
  std::int64_t int64(const et::AttributeProto& a) const {
    using A = et::AttributeProto;
    switch (a.value_case()) {
      case A::kInt32Val:
        return a.int32_val();
      case A::kInt64Val:
        return a.int64_val();
      case A::kUint32Val:
        return a.uint32_val();
      case A::kSint32Val:
        return a.sint32_val();
      case A::kSint64Val:
        return a.sint64_val();
      case A::kFixed32Val:
        return a.fixed32_val();
      case A::kSfixed32Val:
        return a.sfixed32_val();
      case A::kSfixed64Val:
        return a.sfixed64_val();
      case A::kUint64Val:
        return fitting(a, a.uint64_val());
      case A::kFixed64Val:
        return fitting(a, a.fixed64_val());
      default:
        throw wrong_type(a, "an integer");
    }
  }
  std::uint64_t uint64(const et::AttributeProto& a) const {
    using A = et::AttributeProto;
    if (a.value_case() == A::kUint64Val) return a.uint64_val();
    if (a.value_case() == A::kFixed64Val) return a.fixed64_val();
    const std::int64_t value = int64(a);
    if (value < 0) {
      throw InputError(fmt::format("{}: attribute '{}' is negative ({}), a size cannot be", where_, a.name(), value),
                       SourceLocation{source_, 0, 0});
    }
    return static_cast<std::uint64_t>(value);
  }
  std::vector<bool> bools(const et::AttributeProto& a) const {
    if (a.value_case() != et::AttributeProto::kBoolList) throw wrong_type(a, "bool_list");
    return {a.bool_list().values().begin(), a.bool_list().values().end()};
  }
  bool boolean(const et::AttributeProto& a) const {
    if (a.value_case() != et::AttributeProto::kBoolVal) throw wrong_type(a, "bool_val");
    return a.bool_val();
  }
  const std::string& text(const et::AttributeProto& a) const {
    if (a.value_case() != et::AttributeProto::kStringVal) throw wrong_type(a, "string_val");
    return a.string_val();
  }

 private:
  std::int64_t fitting(const et::AttributeProto& a, std::uint64_t value) const {
    if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      throw InputError(fmt::format("{}: attribute '{}' ({}) is past the int64 range", where_, a.name(), value),
                       SourceLocation{source_, 0, 0});
    }
    return static_cast<std::int64_t>(value);
  }
  InputError wrong_type(const et::AttributeProto& a, const char* expected) const {
    return InputError(
        fmt::format("{}: attribute '{}' should hold {} (Chakra's feeder reads it so)", where_, a.name(), expected),
        SourceLocation{source_, 0, 0});
  }
  const std::string& source_;
  std::string where_;
};

ExecutionNode from_message(const et::Node& m, const std::string& source) {
  ExecutionNode n;
  n.id = m.id();
  n.name = m.name();
  n.kind = static_cast<NodeKind>(m.type());
  n.ctrl_deps.assign(m.ctrl_deps().begin(), m.ctrl_deps().end());
  n.data_deps.assign(m.data_deps().begin(), m.data_deps().end());
  n.duration_micros = m.duration_micros();
  n.inputs_values = m.inputs().values();
  const AttributeReader read(source, fmt::format("node {} ('{}')", n.id, n.name));
  for (const et::AttributeProto& a : m.attr()) {
    if (a.name() == kCommType) {
      n.collective = static_cast<CollectiveKind>(read.int64(a));
    } else if (a.name() == kCommSize) {
      n.comm_size = read.int64(a);
    } else if (a.name() == kIsCpuOp) {
      n.is_cpu_op = read.boolean(a);
    } else if (a.name() == kDurationPs) {
      n.duration_ps = read.int64(a);
    } else if (a.name() == kNumOps) {
      n.num_ops = read.int64(a);
    } else if (a.name() == kTensorSize) {
      n.tensor_size = read.uint64(a);
    } else if (a.name() == kPgName) {
      n.pg_name = read.text(a);
    } else if (a.name() == kInvolvedDim) {
      n.involved_dim = read.bools(a);
    } else if (a.name() == kBackwardPass) {
      n.backward = read.boolean(a);
    } else {
      const std::pair<const char*, std::optional<std::int64_t>*> ints[] = {
          {kCommSrc, &n.comm_src},       {kCommDst, &n.comm_dst},     {kCommTag, &n.comm_tag},
          {kMicroBatch, &n.micro_batch}, {kChunk, &n.chunk},          {kRecomputePs, &n.recompute_ps},
          {kBucket, &n.bucket},          {kOverlapPs, &n.overlap_ps}, {kOverlapMethod, &n.overlap_method},
          {kOverlapSms, &n.overlap_sms}};
      for (const auto& [name, value] : ints) {
        if (a.name() == name) *value = read.int64(a);
      }
    }
  }
  return n;
}

void read_metadata(const et::GlobalMetadata& m, ExecutionTrace& trace, const std::string& source) {
  trace.version = m.version();
  const AttributeReader read(source, "the global metadata");
  for (const et::AttributeProto& a : m.attr()) {
    if (a.name() == kWorkload) trace.workload = read.text(a);
    if (a.name() == kRank) trace.rank = read.int64(a);
    if (a.name() == kRanks) trace.ranks = read.int64(a);
  }
}

}  // namespace

bool execution_traces_supported() {
  return true;
}

std::string encode_execution_trace(const ExecutionTrace& trace) {
  std::string bytes;
  {
    StringOutputStream stream(&bytes);
    CodedOutputStream out(&stream);
    et::GlobalMetadata metadata;
    metadata.set_version(trace.version);
    if (!trace.workload.empty()) {
      et::AttributeProto* name = metadata.add_attr();
      name->set_name(kWorkload);
      name->set_string_val(trace.workload);
    }
    add_int(*metadata.mutable_attr(), kRank, trace.rank);
    add_int(*metadata.mutable_attr(), kRanks, trace.ranks);
    write_delimited(metadata, out);
    et::Node message;
    for (const ExecutionNode& node : trace.nodes) {
      fill_message(node, message);
      write_delimited(message, out);
    }
  }  // the coded stream flushes into `bytes` as it goes out of scope
  return bytes;
}

ExecutionTrace decode_execution_trace(std::string_view bytes, const std::string& source) {
  const auto fail = [&](const std::string& what) { return InputError(what, SourceLocation{source, 0, 0}); };
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw fail("the execution trace is larger than protobuf can read (2 GiB)");
  }
  ArrayInputStream stream(bytes.data(), static_cast<int>(bytes.size()));
  CodedInputStream in(&stream);
  in.SetTotalBytesLimit(std::numeric_limits<int>::max());
  ExecutionTrace trace;
  for (std::size_t index = 0;; ++index) {
    const auto offset = static_cast<std::size_t>(in.CurrentPosition());
    if (offset == bytes.size()) break;
    const std::string what = index == 0 ? "the global metadata" : fmt::format("node message {}", index);
    std::uint64_t length = 0;
    if (!in.ReadVarint64(&length)) {
      throw fail(fmt::format("truncated or corrupt at byte {}: {}'s length is not a varint", offset, what));
    }
    const std::size_t body = static_cast<std::size_t>(in.CurrentPosition());
    if (length > kMaxNodeBytes) {
      throw fail(
          fmt::format("at byte {}: {} claims {} bytes, more than the {} a message may have (not a Chakra "
                      "execution trace?)",
                      offset, what, length, kMaxNodeBytes));
    }
    if (length > bytes.size() - body) {
      throw fail(fmt::format("truncated: {} at byte {} claims {} bytes, the file has {} left", what, offset, length,
                             bytes.size() - body));
    }
    const std::string_view message = bytes.substr(body, static_cast<std::size_t>(length));
    if (index == 0) {
      et::GlobalMetadata metadata;
      if (!metadata.ParseFromArray(message.data(), static_cast<int>(message.size()))) {
        throw fail(
            fmt::format("at byte {}: not a Chakra GlobalMetadata message (not a Chakra execution trace?)", offset));
      }
      read_metadata(metadata, trace, source);
    } else {
      et::Node node;
      if (!node.ParseFromArray(message.data(), static_cast<int>(message.size()))) {
        throw fail(fmt::format("at byte {}: {} is not a Chakra Node message", offset, what));
      }
      if (node.type() == et::INVALID_NODE) {
        throw fail(fmt::format("at byte {}: {} (id {}) has no type (INVALID_NODE): not a Chakra execution trace?",
                               offset, what, node.id()));
      }
      if (trace.nodes.size() == kMaxNodes) throw fail(fmt::format("more than {} nodes in one rank's trace", kMaxNodes));
      trace.nodes.push_back(from_message(node, source));
    }
    in.Skip(static_cast<int>(length));
  }
  if (bytes.empty()) throw fail("the execution trace is empty (no GlobalMetadata)");
  return trace;
}

}  // namespace syncsim::chakra
