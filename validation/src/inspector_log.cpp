#include "syncsim/validation/inspector_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"
#include "syncsim/core/json_input.hpp"
#include "syncsim/validation/nccl_tests_log.hpp"

namespace syncsim {

namespace {

using InspectorJson = nlohmann::json;

// Below the simulated clock's picosecond no prediction can be compared with a time (log_system.cpp's rule for
// nccl-tests rows): 0 and 1e-300 are refused here, at their line, rather than after a median hid them.
constexpr double kInspectorClockResolutionUs = 1e-6;

// One record's object at a key path ("header", "coll_perf"), whose fields are read by name; every error names the
// source, the record's line and the full key path.
class InspectorFields {
 public:
  InspectorFields(const InspectorJson& parent, const char* key, const std::string& source, int line)
      : source_(source), line_(line), path_(key) {
    const auto it = parent.find(key);
    if (it == parent.end()) fail("", "missing");
    if (!it->is_object()) fail("", "expected an object, got " + json_value_text(*it));
    object_ = &*it;
  }

  bool has(const char* key) const { return object_->contains(key); }
  const InspectorJson& object() const { return *object_; }
  const std::string& path() const { return path_; }

  std::string text(const char* key, bool required = true) const {
    const InspectorJson* value = find(key, required);
    if (!value) return {};
    if (!value->is_string()) fail(key, "expected a string, got " + json_value_text(*value));
    return value->get<std::string>();
  }

  std::int64_t whole(const char* key, std::int64_t min, std::int64_t max) const {
    const InspectorJson& value = *find(key, true);
    if (!value.is_number_integer()) fail(key, "expected a whole number, got " + json_value_text(value));
    if (value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(max)) {
      fail(key, fmt::format("{} is above the most this reader takes, {}", json_value_text(value), max));
    }
    const std::int64_t n = value.get<std::int64_t>();
    if (n < min || n > max) fail(key, fmt::format("{} is outside {}..{}", n, min, max));
    return n;
  }

  double time_us(const char* key) const {
    const InspectorJson& value = *find(key, true);
    if (!value.is_number()) fail(key, "expected a number of microseconds, got " + json_value_text(value));
    const double t = value.get<double>();
    if (!std::isfinite(t) || t < 0) fail(key, fmt::format("a time must be finite and not negative, got {}", t));
    if (t < kInspectorClockResolutionUs) {
      fail(key,
           fmt::format("a measured time of {} us: a time must be at least the simulated clock's resolution, 1 ps", t));
    }
    return t;
  }

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw InputError(what, SourceLocation{source_, line_}, key.empty() ? path_ : path_ + "." + key);
  }

 private:
  const InspectorJson* find(const char* key, bool required) const {
    const auto it = object_->find(key);
    if (it == object_->end() || it->is_null()) {
      if (required) fail(key, "missing");
      return nullptr;
    }
    return &*it;
  }

  const std::string& source_;
  int line_;
  std::string path_;
  const InspectorJson* object_ = nullptr;
};

// NCCL's names for calls syncsim does not model as one collective: counted and skipped.
bool is_skipped_nccl_call(std::string_view name) {
  return name == "All2All" || name == "AllGatherV" || name == "SendRecv" || name == "Send" || name == "Recv";
}

// A kernel event's timestamp (microseconds, a whole or fractional number not below zero), at its full key path.
double kernel_timestamp_us(const InspectorJson& event, const char* key, const std::string& source, int line,
                           const std::string& path) {
  const auto it = event.find(key);
  if (it == event.end() || !it->is_number()) {
    throw InputError(it == event.end() ? "missing" : "expected a number of microseconds, got " + json_value_text(*it),
                     SourceLocation{source, line}, path + "." + key);
  }
  const double t = it->get<double>();
  if (!std::isfinite(t) || t < 0) {
    throw InputError(fmt::format("a timestamp must be finite and not negative, got {}", t),
                     SourceLocation{source, line}, path + "." + key);
  }
  return t;
}

// coll_perf.event_trace_ts.kernel_events of a verbose record: the first start and the last stop.
void read_kernel_span(const InspectorFields& perf, const std::string& source, int line, InspectorRecord& r) {
  const auto trace = perf.object().find("event_trace_ts");
  if (trace == perf.object().end() || !trace->is_object()) return;
  const auto events = trace->find("kernel_events");
  if (events == trace->end() || !events->is_array()) return;
  for (std::size_t i = 0; i < events->size(); ++i) {
    const InspectorJson& event = (*events)[i];
    const std::string path = fmt::format("{}.event_trace_ts.kernel_events[{}]", perf.path(), i);
    if (!event.is_object()) {
      throw InputError("expected an object, got " + json_value_text(event), SourceLocation{source, line}, path);
    }
    const double start = kernel_timestamp_us(event, "kernel_start_ts", source, line, path);
    const double stop = kernel_timestamp_us(event, "kernel_stop_ts", source, line, path);
    if (stop < start) {
      throw InputError(fmt::format("a kernel that stops ({}) before it starts ({})", stop, start),
                       SourceLocation{source, line}, path + ".kernel_stop_ts");
    }
    r.kernel_start_us = r.kernel_start_us ? std::min(*r.kernel_start_us, start) : start;
    r.kernel_stop_us = r.kernel_stop_us ? std::max(*r.kernel_stop_us, stop) : stop;
  }
}

// Reads one record; false for a record that is skipped (p2p, a call not modelled), whose call goes to `skipped`.
bool read_record(const InspectorJson& object, const std::string& source, int line, InspectorRecord& r,
                 std::string& skipped) {
  if (!object.contains("coll_perf") && object.contains("p2p_perf")) {
    skipped = "p2p_perf";
    return false;
  }
  const InspectorFields header(object, "header", source, line);
  r.comm_id = header.text("id");
  r.comm_name = header.text("comm_name", false);
  r.n_ranks = static_cast<int>(header.whole("n_ranks", 1, kMaxNcclTestsRanks));
  r.rank = static_cast<int>(header.whole("rank", 0, kMaxNcclTestsRanks));
  if (r.rank >= r.n_ranks) {
    header.fail("rank", fmt::format("rank {} of a communicator of {} ranks (ranks are 0..{})", r.rank, r.n_ranks,
                                    r.n_ranks - 1));
  }
  r.nnodes = static_cast<int>(header.whole("nnodes", 1, kMaxNcclTestsRanks));
  if (r.nnodes > r.n_ranks) {
    header.fail("nnodes", fmt::format("{} nodes for {} ranks: every node holds a rank", r.nnodes, r.n_ranks));
  }
  if (object.contains("metadata")) {
    const InspectorFields metadata(object, "metadata", source, line);
    r.hostname = metadata.text("hostname", false);
    r.format_version = metadata.text("inspector_output_format_version", false);
    if (metadata.has("pid")) r.pid = metadata.whole("pid", 0, std::numeric_limits<std::int64_t>::max());
  }
  const InspectorFields perf(object, "coll_perf", source, line);
  r.coll = perf.text("coll");
  const std::optional<CollectiveOp> op = collective_from_nccl_name(r.coll);
  if (!op) {
    if (is_skipped_nccl_call(r.coll)) {
      skipped = r.coll;
      return false;
    }
    perf.fail("coll", fmt::format("\"{}\" is not a collective NCCL names (AllReduce, AllGather, ReduceScatter, "
                                  "Broadcast, Reduce, ...)",
                                  r.coll));
  }
  r.op = *op;
  r.sn = static_cast<std::uint64_t>(perf.whole("coll_sn", 0, std::numeric_limits<std::int64_t>::max()));
  r.msg_size_bytes = perf.whole("coll_msg_size_bytes", 0, std::numeric_limits<std::int64_t>::max());
  if (r.msg_size_bytes > kMaxInspectorBytes / r.n_ranks) {
    perf.fail("coll_msg_size_bytes", fmt::format("{} bytes on each of {} ranks: beyond 1 PiB for the collective, the "
                                                 "most this reader takes (a corrupt record?)",
                                                 r.msg_size_bytes, r.n_ranks));
  }
  r.time_us = perf.time_us("coll_exec_time_us");
  read_kernel_span(perf, source, line, r);
  r.line = line;
  return true;
}

}  // namespace

std::int64_t InspectorRecord::whole_buffer_bytes() const {
  return op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter ? msg_size_bytes * n_ranks
                                                                              : msg_size_bytes;
}

std::optional<CollectiveOp> collective_from_nccl_name(std::string_view name) {
  if (name == "AllReduce") return CollectiveOp::allreduce;
  if (name == "AllGather") return CollectiveOp::all_gather;
  if (name == "ReduceScatter") return CollectiveOp::reduce_scatter;
  if (name == "Broadcast") return CollectiveOp::broadcast;
  if (name == "Reduce") return CollectiveOp::reduce;
  return std::nullopt;
}

InspectorLog parse_inspector_log(std::string_view raw, const std::string& source) {
  const std::string normalized = needs_normalizing(raw) ? normalized_input_text(raw) : std::string();
  const std::string_view text = normalized.empty() ? raw : std::string_view(normalized);
  check_json_nesting(text, source);
  InspectorLog log;
  log.source = source;
  int line = 0;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view content = text.substr(start, end - start);
    start = end + 1;
    ++line;
    if (content.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    InspectorJson object;
    try {
      object = InspectorJson::parse(content);
    } catch (const InspectorJson::parse_error& e) {
      throw InputError(fmt::format("not a JSON record (the plugin writes one object per line): {}", e.what()),
                       SourceLocation{source, line, static_cast<int>(std::min<std::size_t>(e.byte, 1u << 30))});
    } catch (const InspectorJson::exception& e) {  // a number beyond a double's range (1e999)
      throw InputError(fmt::format("not a JSON record: {}", e.what()), SourceLocation{source, line});
    }
    if (!object.is_object()) {
      throw InputError("expected a JSON object (one record per line), got " + json_value_text(object),
                       SourceLocation{source, line});
    }
    InspectorRecord record;
    std::string skipped;
    if (read_record(object, source, line, record, skipped)) {
      log.records.push_back(std::move(record));
    } else {
      if (log.skipped_records++ == 0) {
        log.first_skipped_line = line;
        log.first_skipped_call = skipped;
      }
    }
  }
  if (log.skipped_records > 0) {
    log.warnings.push_back(
        fmt::format("{}: {} record{} of point-to-point calls or of collectives syncsim does not model (All2All, "
                    "AllGatherV) skipped",
                    source, log.skipped_records, log.skipped_records == 1 ? "" : "s"));
  }
  if (log.records.empty()) {
    throw InputError("no collective records (coll_perf) in this NCCL Inspector log", SourceLocation{source});
  }
  return log;
}

InspectorLog read_inspector_log(const std::string& path) {
  return parse_inspector_log(read_input_file(path, "NCCL Inspector log"), path);
}

}  // namespace syncsim
