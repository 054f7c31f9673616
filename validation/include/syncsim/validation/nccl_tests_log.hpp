#pragma once
// NcclTestsLog: one nccl-tests result table (all_reduce_perf, all_gather_perf, ...) as a value.
//
// nccl-tests prints one row per message size, the out-of-place measurement and then the in-place one:
//
//   # nThread 1 nGpus 1 minBytes 64 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 ...
//   # Using devices
//   #  Rank  0 Group  0 Pid  10000 on    node-00 device  0 [0x07] NVIDIA A100-SXM4-40GB
//   #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw ...
//             64            16     float     sum      -1    32.01    0.00    0.00      0    31.82    0.00 ...
//   # Out of bounds values : 0 OK
//   # Avg bus bandwidth    : 80.9946
//
// Older nccl-tests have no `root` column and print `error` (the largest deviation, e.g. `0e+00`) where newer ones
// print `#wrong` (a count of wrong elements). time is microseconds per operation; algbw = size / time and
// busbw = algbw x bus_factor(op, ranks), in GB/s of 1e9 bytes (collective_op.hpp).
//
// The real benchmarks (syncsim-bench-mpi, syncsim-bench-nccl) fill the same value and print it with
// write_nccl_tests_log (nccl_tests_writer.hpp), so calibration and validation read one type whatever measured it.
//
//   const NcclTestsLog log = read_nccl_tests_log("all_reduce_perf.log");
//   for (const NcclTestsRow& row : log.rows) fit.add(row.size_bytes, row.out_of_place.time_us);
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/collectives/collective_op.hpp"

namespace syncsim {

// One placement's measurement: out-of-place (separate send and receive buffers) or in-place.
struct NcclTestsPlacement {
  double time_us = 0;
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  // `#wrong` (newer logs: elements that differ from the expected result) or `error` (older logs: the largest
  // deviation); nullopt where the log prints N/A (checking was off).
  std::optional<double> wrong;
  friend bool operator==(const NcclTestsPlacement&, const NcclTestsPlacement&) = default;
};

struct NcclTestsRow {
  std::int64_t size_bytes = 0;  // as printed: the whole buffer (for AllGather the gathered output)
  std::int64_t count = 0;       // elements as printed: per rank for ReduceScatter and AllGather
  std::string type = "float";
  std::string redop = "sum";
  std::optional<int> root;  // nullopt in older logs, which have no root column
  NcclTestsPlacement out_of_place;
  NcclTestsPlacement in_place;
  int line = 0;  // 1-based line in the source, for messages of later stages; 0 for rows not read from text
};

// The most ranks a log may have: the generators' GPU limit (2^20), since every rank of a log is simulated on a GPU
// of a topology. A rank number or a count of rank lines beyond it is an InputError, before any memory is spent on
// the ranks.
inline constexpr int kMaxNcclTestsRanks = 1 << 20;

// One `#  Rank  3 Group  0 Pid  10003 on node-00 device  3 [0x37] NVIDIA A100-SXM4-40GB` line.
struct NcclTestsRank {
  int rank = 0;
  std::string host;
  std::int64_t pid = 0;
  int device = 0;
  std::string bus_id;       // what the brackets hold: "0x07", "0000:04:00", "cpu"
  std::string device_name;  // "NVIDIA A100-SXM4-40GB"
};

enum class NcclTestsLayout {
  with_root,     // size count type redop root, then time algbw busbw #wrong, out-of-place and in-place
  without_root,  // older: size count type redop, then time algbw busbw error, twice
};
std::string_view to_string(NcclTestsLayout layout);

struct NcclTestsLog {
  std::string source;  // file path (or the name given to parse_nccl_tests_log)
  CollectiveOp collective = CollectiveOp::allreduce;
  NcclTestsLayout layout = NcclTestsLayout::with_root;
  int ranks = 0;
  int ranks_per_host = 0;                // ranks / hosts; the largest host's count (with a warning) when hosts differ
  int hosts = 0;                         // distinct host names in the rank lines
  std::vector<std::string> gpu_names;    // distinct device names, in rank order of first appearance
  std::vector<NcclTestsRank> rank_list;  // one per rank, sorted by rank; empty when the ranks came from options
  std::string parameters;          // "nThread 1 nGpus 1 minBytes 8 ..." (the first header line without '#'), or empty
  std::vector<NcclTestsRow> rows;  // in file order, duplicates removed (see warnings)
  std::optional<std::int64_t> out_of_bounds;  // "# Out of bounds values : 0 OK"
  std::optional<double> avg_busbw_gbps;       // "# Avg bus bandwidth    : 80.9946"
  // What NCCL's own lines state, when the log kept them: "NCCL version 2.18.5+cuda12.2" and each
  // "NCCL INFO NCCL_IB_HCA set by environment to mlx5" (as "NCCL_IB_HCA=mlx5", in order, once each).
  std::string nccl_version;
  std::vector<std::string> nccl_env;
  // Everything read but doubtful: removed duplicate rows, a missing footer, wrong results, busbw that does not
  // match the rank count. One sentence each, naming the line.
  std::vector<std::string> warnings;
};

struct NcclTestsReadOptions {
  // The collective, when the log cannot tell (no `# Collective test starting` line, no telling file name, a
  // one-rank table). Overrides what the log says; rows must still agree with it.
  std::optional<CollectiveOp> collective;
  // The rank count, for a log without rank lines (a table copied without its header). Overrides the rank lines.
  std::optional<int> ranks;
};

// Reads a log file; throws InputError naming file and line for a file that cannot be read, a garbled or
// half-written row, a missing table, an unknown rank count. A missing footer is only a warning.
NcclTestsLog read_nccl_tests_log(const std::string& path, const NcclTestsReadOptions& options = {});
// The same for text in memory; `source` names it in errors and hints the collective like a file name.
NcclTestsLog parse_nccl_tests_log(std::string_view text, const std::string& source,
                                  const NcclTestsReadOptions& options = {});

// "all_reduce_perf" -> allreduce, ... (nccl_tests_name's inverse); nullopt for other names.
std::optional<CollectiveOp> collective_from_test_name(std::string_view name);
// A file name that names its collective: "x.all_gather.log", "all_reduce_perf-2node.txt", "rs-allgather.log".
std::optional<CollectiveOp> collective_from_file_name(std::string_view path);
// Bytes per element of an nccl-tests type name ("float" 4, "half" 2, "bfloat16" 2, "int8" 1, ...); nullopt if
// unknown.
std::optional<int> nccl_tests_type_bytes(std::string_view type);

}  // namespace syncsim
