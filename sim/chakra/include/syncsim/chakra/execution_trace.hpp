#pragma once
// ExecutionTrace: one rank's Chakra execution trace (MLCommons Chakra's et_def.proto, the workload format ASTRA-sim
// reads) as a plain value, and its file format. The protobuf messages stay inside the codec (chakra_et.proto, built
// when protobuf is found); this header is all a caller sees.
//
// A file, `<prefix>.<rank>.et`, is a sequence of length-delimited messages, as Chakra's encode_message writes them:
//
//   varint n | GlobalMetadata (n bytes) | varint n | Node | varint n | Node | ...
//
// What syncsim keeps of a node, and the attributes it writes and reads (names as Chakra's feeder reads them):
//
//   field / attribute      type     on           meaning
//   id, name, type         -        every node   `type` kept as its raw number, so an unknown kind can be named
//   data_deps, ctrl_deps   -        every node   ids of the nodes that must end first
//   duration_micros        -        COMP_NODE    the replay time ASTRA-sim uses, whole microseconds
//   comm_type              int64    COMM_COLL    CollectiveCommType: ALL_REDUCE = 0, ...
//   comm_size              int64    COMM_COLL    bytes per rank
//   is_cpu_op              bool     both         written false: the work runs on the GPU
//   num_ops                int64    COMP_NODE    the node's floating-point operations (ASTRA-sim's roofline mode)
//   tensor_size            uint64   COMP_NODE    the bytes it moves through memory (likewise)
//   pg_name                string   COMM_COLL    the process group it runs on ("0": PyTorch's default, all ranks)
//   syncsim_duration_ps    int64    COMP_NODE    syncsim's own: the exact time, as duration_micros rounds it
//   comm_src, comm_dst     int32    SEND/RECV    the peer ranks of a point-to-point transfer (ASTRA-sim's), and
//   comm_tag               int32    SEND/RECV    the tag that pairs a send with its receive (as Chakra reads them)
//   involved_dim           bool[]   COMM_COLL    ASTRA-sim's network dimensions a collective spans (read only)
//   syncsim_micro_batch    int64    layout       the pipeline pass a node belongs to: its micro-batch,
//   syncsim_chunk          int64    layout       its model chunk (virtual stage) on the device,
//   syncsim_backward       bool     layout       and its direction
//   syncsim_recompute_ps   int64    COMP_NODE    of a backward pass: the part that runs forward again
//   syncsim_bucket         int64    COMP_NODE    a sharded DDP layer's bucket (ZeRO's unit), whose gather it needs
//   syncsim_overlap_ps     int64    COMM_COLL    tp_comm_overlap: on the first chunk of a tensor collective split
//                                                beside GEMMs, the GEMM time syncsim's model overlaps it with,
//   syncsim_overlap_method int64    COMM_COLL    how it runs there (0 chunked, 1 on the SMs it leaves, 2 bulk,
//                                                3 ring exchange, 4 in pairs: layout_workload.hpp's OverlapMethod),
//   syncsim_overlap_sms    int64    COMM_COLL    and the SMs its kernels take
//
// Integer attributes are read whatever integer type holds them (int32, uint32, int64, uint64, sint, fixed), as
// long as the value fits. Other attributes are skipped on reading. `inputs.values` is kept: a METADATA_NODE
// holds PyTorch's process groups there (process_groups.hpp).
//
//   const std::string bytes = encode_execution_trace(trace);           // the file's content
//   ExecutionTrace back = decode_execution_trace(bytes, "out/x.0.et");  // InputError at that name on bad bytes
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace syncsim::chakra {

// Chakra's NodeType values.
enum class NodeKind : std::int64_t {
  invalid = 0,
  metadata = 1,
  mem_load = 2,
  mem_store = 3,
  compute = 4,
  send = 5,
  recv = 6,
  collective = 7,
};

// Chakra's CollectiveCommType values.
enum class CollectiveKind : std::int64_t {
  all_reduce = 0,
  reduce = 1,
  all_gather = 2,
  gather = 3,
  scatter = 4,
  broadcast = 5,
  all_to_all = 6,
  reduce_scatter = 7,
  reduce_scatter_block = 8,
  barrier = 9,
};

// The schema's names, "COMP_NODE", "ALL_REDUCE"; "node type 42" for a number the schema does not define.
std::string to_string(NodeKind kind);
std::string to_string(CollectiveKind kind);

struct ExecutionNode {
  std::uint64_t id = 0;
  std::string name;
  NodeKind kind = NodeKind::invalid;
  std::vector<std::uint64_t> data_deps;
  std::vector<std::uint64_t> ctrl_deps;
  std::uint64_t duration_micros = 0;
  std::optional<std::int64_t> duration_ps;   // syncsim_duration_ps
  std::optional<CollectiveKind> collective;  // comm_type
  std::optional<std::int64_t> comm_size;     // bytes
  bool is_cpu_op = false;
  std::optional<std::int64_t> num_ops = std::nullopt;       // num_ops
  std::optional<std::uint64_t> tensor_size = std::nullopt;  // tensor_size, bytes
  std::optional<std::string> pg_name = std::nullopt;        // pg_name
  std::optional<std::int64_t> comm_src = std::nullopt;
  std::optional<std::int64_t> comm_dst = std::nullopt;
  std::optional<std::int64_t> comm_tag = std::nullopt;
  std::vector<bool> involved_dim = {};                        // empty: not given (every dimension)
  std::optional<std::int64_t> micro_batch = std::nullopt;     // syncsim_micro_batch
  std::optional<std::int64_t> chunk = std::nullopt;           // syncsim_chunk
  std::optional<bool> backward = std::nullopt;                // syncsim_backward
  std::optional<std::int64_t> recompute_ps = std::nullopt;    // syncsim_recompute_ps
  std::optional<std::int64_t> bucket = std::nullopt;          // syncsim_bucket
  std::optional<std::int64_t> overlap_ps = std::nullopt;      // syncsim_overlap_ps
  std::optional<std::int64_t> overlap_method = std::nullopt;  // syncsim_overlap_method
  std::optional<std::int64_t> overlap_sms = std::nullopt;     // syncsim_overlap_sms
  std::string inputs_values = {};                             // inputs.values (IOInfo)
};

struct ExecutionTrace {
  std::string version;   // GlobalMetadata.version; syncsim writes kSchemaVersion
  std::string workload;  // syncsim_workload: the scenario's name (empty when the writer gave none)
  std::int64_t rank = 0;
  std::int64_t ranks = 1;
  std::vector<ExecutionNode> nodes;  // in file order
};

// The Chakra schema version syncsim's files follow (et_def.proto as of Chakra 0.0.4).
inline constexpr std::string_view kSchemaVersion = "0.0.4";
// A node larger than this is refused before it is parsed: a real node is a few hundred bytes, a corrupt length
// prefix is not trusted for an allocation.
inline constexpr std::uint64_t kMaxNodeBytes = std::uint64_t{1} << 20;
// Nodes per file: memory stays bounded whatever a file's length prefixes say (an empty message is a valid node).
inline constexpr std::size_t kMaxNodes = std::size_t{1} << 22;

// False when this syncsim was built without protobuf: encode and decode then throw InputError saying so.
bool execution_traces_supported();

std::string encode_execution_trace(const ExecutionTrace& trace);
// Throws InputError at `source` for an empty or truncated file, a node without a type (INVALID_NODE), a length past the
// file or kMaxNodeBytes, bytes that are not the message they should be (naming the message's index and byte offset), or
// an attribute of the wrong type.
ExecutionTrace decode_execution_trace(std::string_view bytes, const std::string& source);
// read_input_bytes (256 MiB at most, regular files only) and decode_execution_trace.
ExecutionTrace read_execution_trace(const std::filesystem::path& path);

// `<prefix>.<rank>.et`, the name ASTRA-sim's --workload-configuration=<prefix> looks for.
std::string execution_trace_file_name(const std::string& prefix, std::int64_t rank);
// The rank of such a file name (no folder), or nullopt when `name` is not one: `chakra.12.et` -> 12.
std::optional<std::int64_t> execution_trace_file_rank(const std::string& prefix, const std::string& name);

}  // namespace syncsim::chakra
