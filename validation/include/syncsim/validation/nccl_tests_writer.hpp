#pragma once
// Writing an NcclTestsLog in nccl-tests' own layout, and building one from measurements.
//
// The real benchmarks measure each size out-of-place and in-place, turn the times into rows with
// measured_placement(), and print the whole log with write_nccl_tests_log(): a file that nccl-tests users read
// as usual and that read_nccl_tests_log() reads back (the rank lines carry rank count, hosts and device names).
//
//   NcclTestsLog log = ...;  // collective, ranks, rank_list, parameters
//   row.out_of_place = measured_placement(log.collective, log.ranks, row.size_bytes, seconds, wrong);
//   log.avg_busbw_gbps = average_busbw_gbps(log);
//   write_nccl_tests_log(std::cout, log);
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "syncsim/core/units.hpp"
#include "syncsim/validation/nccl_tests_log.hpp"

namespace syncsim {

// `# Collective test starting`, the parameters line, `# Using devices` and the rank lines, the table in the newer
// layout (root and #wrong), `# Out of bounds values`, `# Avg bus bandwidth` (average_busbw_gbps() when the log
// has none). Rows of an older log get root -1.
void write_nccl_tests_log(std::ostream& out, const NcclTestsLog& log);

// One `#  Rank  0 Group  0 Pid  10000 on    node-00 device  0 [0x07] NVIDIA A100-SXM4-40GB` line, newline included.
std::string format_rank_line(const NcclTestsRank& rank);

// The parameters line of a sweep as nccl-tests prints it (one thread, one device per process):
// "nThread 1 nGpus 1 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 ...".
std::string format_nccl_tests_parameters(Bytes min, Bytes max, double factor, int warmup_iters, int iters, bool check);

// Fills ranks, hosts, ranks_per_host (the largest host's count) and gpu_names from rank_list, as the reader does.
void describe_system(NcclTestsLog& log);

// A placement from a measured time per operation: algbw = size / time, busbw = algbw x the bus factor.
NcclTestsPlacement measured_placement(CollectiveOp op, int ranks, std::int64_t size_bytes, double seconds,
                                      std::optional<std::int64_t> wrong);

// The mean busbw over all rows, out-of-place and in-place, as nccl-tests computes its closing average.
double average_busbw_gbps(const NcclTestsLog& log);

}  // namespace syncsim
