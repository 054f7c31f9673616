#pragma once
// Collective operations and nccl-tests' bandwidth definitions.
//
// For an operation of `size` bytes taking time t on n ranks (nccl-tests, doc/PERFORMANCE.md):
//   algbw = size / t
//   busbw = algbw * factor, factor = 2(n-1)/n for AllReduce, (n-1)/n for ReduceScatter and AllGather,
//           1 for Broadcast and Reduce.
// busbw is the number to compare with a link's bandwidth: an optimal ring reaches it. For ReduceScatter `size` is
// each rank's input and for AllGather each rank's output (the whole gathered buffer), as nccl-tests prints them.
#include <string_view>

#include "syncsim/core/units.hpp"

namespace syncsim {

enum class CollectiveOp { allreduce, reduce_scatter, all_gather, broadcast, reduce };

std::string_view to_string(CollectiveOp op);
CollectiveOp parse_collective_op(std::string_view text);  // throws InputError listing the accepted names
double bus_factor(CollectiveOp op, std::size_t ranks);
// The nccl-tests program that measures the operation ("all_reduce_perf", ...), to label comparable tables.
std::string_view nccl_tests_name(CollectiveOp op);

struct BusBandwidth {
  Bandwidth algbw;
  Bandwidth busbw;
};
BusBandwidth bus_bandwidth(CollectiveOp op, std::size_t ranks, Bytes size, SimTime time);

}  // namespace syncsim
