#pragma once
// Collective operations and nccl-tests' bandwidth definitions.
//
// For an operation of `size` bytes taking time t on n ranks (nccl-tests, doc/PERFORMANCE.md):
//   algbw = size / t
//   busbw = algbw * factor, factor = 2(n-1)/n for AllReduce, (n-1)/n for ReduceScatter, AllGather and AllToAll,
//           1 for Broadcast and Reduce.
// busbw is the number to compare with a link's bandwidth: an optimal ring reaches it. For ReduceScatter `size` is
// each rank's input and for AllGather each rank's output (the whole gathered buffer), as nccl-tests prints them.
//
// AllToAll (nccl-tests' alltoall_perf, src/alltoall.cu in nccl-tests 2.19): `size` is each rank's send buffer,
// which is also its receive buffer; block d of rank r's send buffer (size/n bytes) lands in block r of rank d's
// receive buffer, rank r's own block included (a local copy). nccl-tests prints `count` per peer (rounded down to
// 16 bytes), so size = count x element size x n as for ReduceScatter and AllGather, and busbw = algbw (n-1)/n: the
// fraction of each rank's buffer that leaves it, so a rank whose link carries nothing else reaches the link rate.
#include <string_view>

#include "syncsim/core/units.hpp"

namespace syncsim {

enum class CollectiveOp { allreduce, reduce_scatter, all_gather, broadcast, reduce, alltoall };

std::string_view to_string(CollectiveOp op);
CollectiveOp parse_collective_op(std::string_view text);  // throws InputError listing the accepted names
double bus_factor(CollectiveOp op, std::size_t ranks);
// Whether nccl-tests prints `count` per rank (per peer for AllToAll) rather than for the whole buffer: size is then
// count x element size x ranks (ReduceScatter, AllGather, AllToAll).
bool count_is_per_rank(CollectiveOp op);
// The nccl-tests program that measures the operation ("all_reduce_perf", ...), to label comparable tables.
std::string_view nccl_tests_name(CollectiveOp op);

struct BusBandwidth {
  Bandwidth algbw;
  Bandwidth busbw;
};
BusBandwidth bus_bandwidth(CollectiveOp op, std::size_t ranks, Bytes size, SimTime time);

}  // namespace syncsim
