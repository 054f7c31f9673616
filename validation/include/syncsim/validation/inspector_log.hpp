#pragma once
// InspectorLog: the records of an NCCL Inspector log (NVIDIA/nccl, plugins/profiler/inspector) as values.
//
// The plugin writes one JSON object per line, one per completed collective per communicator per rank (output
// format "v4.0", the only one its README documents; read at NVIDIA/nccl 5067397c, June 2026):
//
//   {"header": {"id": "0x7f8c496ae9f661", "comm_name": "DP Group 0", "rank": 2, "n_ranks": 8, "nnodes": 1},
//    "metadata": {"inspector_output_format_version": "v4.0", "git_rev": "", "rec_mechanism": "...",
//                 "dump_timestamp_us": 1748030377748202, "hostname": "node-00", "pid": 1639453},
//    "coll_perf": {"coll": "AllReduce", "coll_sn": 1407, "coll_msg_size_bytes": 17179869184,
//                  "coll_exec_time_us": 61974, "coll_timing_source": "kernel_gpu",
//                  "coll_algobw_gbs": 277.21, "coll_busbw_gbs": 485.12}}
//
// A point-to-point record has "p2p_perf" in place of "coll_perf"; it is counted and skipped (the fit models
// collectives), as are the collectives NCCL names that syncsim does not model as one call (All2All, whose size the
// plugin does not define a bus bandwidth for, AllGatherV, SendRecv, Send, Recv). Verbose logs add "event_trace_sn" and
// "event_trace_ts" to coll_perf: its kernel events' first start and last stop are kept (the collective sequence,
// inspector_sequence.hpp, takes a rank's time between collectives from them); every other key the reader does not
// know is ignored. `comm_name` (added after the
// README's first example) and `coll_timing_source` are optional; the rest of header and coll_perf is required.
//
// Sizes: coll_msg_size_bytes is what one rank passes to NCCL — for AllGather its send buffer and for ReduceScatter
// its receive buffer, a 1/n_ranks share of the buffer nccl-tests prints as `size` (the plugin's bus bandwidth
// multiplies them by n_ranks). `whole_buffer_bytes` gives the nccl-tests size, which the simulator takes.
// Times: coll_exec_time_us is a whole number of microseconds in v4.0 (the kernel's GPU time); fractions are read.
//
// Refused (InputError naming file, line and key path): a line that is not a JSON object, a missing required key,
// a value of the wrong type, a negative, non-finite or sub-picosecond time, a size beyond kMaxInspectorBytes, a rank
// outside 0..n_ranks-1, more nodes than ranks, a collective NCCL does not name.
//
//   const InspectorLog log = read_inspector_log("node-00-pid1639453.log");
//   for (const InspectorRecord& r : log.records) use(r.comm_id, r.op, r.whole_buffer_bytes(), r.time_us);
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/collectives/collective_op.hpp"

namespace syncsim {

// 1 PiB: a thousand times the largest collective a training job issues (a few GiB of gradients); a size beyond it
// is a corrupt record, refused before it becomes a simulated transfer.
inline constexpr std::int64_t kMaxInspectorBytes = std::int64_t{1} << 50;

struct InspectorRecord {
  std::string comm_id;    // header.id: the communicator's hash
  std::string comm_name;  // header.comm_name, "" when absent
  int rank = 0;
  int n_ranks = 0;
  int nnodes = 0;
  std::string hostname;  // metadata.hostname, "" when absent
  std::int64_t pid = 0;  // metadata.pid, 0 when absent
  std::string format_version;
  CollectiveOp op = CollectiveOp::allreduce;
  std::string coll;  // as the plugin spells it: "AllReduce"
  std::uint64_t sn = 0;
  std::int64_t msg_size_bytes = 0;
  double time_us = 0;
  int line = 0;  // 1-based line in the source
  // Verbose logs (NCCL_INSPECTOR_DUMP_VERBOSE=1): the first kernel start and the last kernel stop of
  // coll_perf.event_trace_ts.kernel_events, microseconds on the process's clock; nullopt without them.
  std::optional<double> kernel_start_us = std::nullopt;
  std::optional<double> kernel_stop_us = std::nullopt;

  // The buffer nccl-tests would print as `size` for this call (see above).
  std::int64_t whole_buffer_bytes() const;
};

struct InspectorLog {
  std::string source;
  std::vector<InspectorRecord> records;  // in file order
  int skipped_records = 0;               // p2p_perf records and collectives not modelled (above)
  int first_skipped_line = 0;            // the first of them, 0 when none
  std::string first_skipped_call;        // its call as NCCL names it ("All2All"), or "p2p_perf"
  std::vector<std::string> warnings;     // one sentence each
};

// Reads a file through read_input_file; throws InputError as described above.
InspectorLog read_inspector_log(const std::string& path);
// The same for text in memory; `source` names it in errors.
InspectorLog parse_inspector_log(std::string_view text, const std::string& source);

// "AllReduce" -> allreduce, "AllGather", "ReduceScatter", "Broadcast", "Reduce" (NCCL's function names); nullopt for
// the others.
std::optional<CollectiveOp> collective_from_nccl_name(std::string_view name);

}  // namespace syncsim
