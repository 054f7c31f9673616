#pragma once
// Direct collectives: every rank talks to every other rank at once, in one or two steps. Few steps, so few
// latencies, but n(n-1) transfers per step.
//
//   AllReduce, n = 3, chunks a b c (chunk r belongs to rank r)
//
//   step 0 (reduce-scatter)              step 1 (all-gather)
//        r0 --b--> r1                         r0 --a--> r1
//        r0 --c--> r2                         r0 --a--> r2
//        r1 --a--> r0   ...                   r1 --b--> r0   ...
//   every rank sends chunk d to rank d and   every rank sends its summed chunk to every other rank
//   adds the n-1 copies of its own chunk
//
//   ReduceScatter = step 0, AllGather = step 1 (S = the gathered output, chunk S/n per rank), Broadcast = the root
//   sends S to every rank at once, Reduce = every rank sends S to the root, which adds the n-1 buffers in.
//
//   AllToAll, n = 3, S = each rank's buffer, block (r, d) = rank r's S/n bytes for rank d:
//        r0 --(0,1)--> r1   r0 --(0,2)--> r2   r1 --(1,0)--> r0   ...   one step, n-1 sends of S/n per rank
//   the block (r, r) is a local copy and moves nothing. This is NCCL's only all-to-all: ncclAlltoAll appends one
//   send and one receive per peer as point-to-point tasks (src/enqueue.cc, NCCL 2.30), and nccl-tests'
//   alltoall_perf before NCCL 2.28 issues the same ncclSend/ncclRecv per peer in one group.
//
// Cost on one switch (a rank's n-1 sends share its uplink, its n-1 receives its downlink):
//   AllReduce                    2 (alpha + (n-1) S/(n B))
//   ReduceScatter, AllGather,      alpha + (n-1) S/(n B)
//   AllToAll
//   Broadcast, Reduce              alpha + (n-1) S/B          (the root's link carries n-1 whole buffers)
//
// Every step of AllReduce, ReduceScatter, AllGather and AllToAll is symmetric (uniform_pattern): on a network
// where all n(n-1) transfers get the same max-min rate, the executor times the step in closed form, one event
// for all ranks (collective_executor.hpp), so 1,024 ranks cost one max-min solve instead of a million flows.
#include "syncsim/collectives/algorithm.hpp"
#include "syncsim/collectives/collective_plan.hpp"

namespace syncsim {

class DirectPlan final : public CollectivePlan {
 public:
  // Past this, n(n-1) flows per step is a mistake rather than a choice.
  static constexpr std::size_t kMaxRanks = 64;
  // AllToAll has no other way: the executor keeps n(n-1) routes and transfers, about 180 bytes each with the
  // router's cache (190 MB measured at 1,024 ranks), so 2,048 ranks take about 750 MB; beyond that the memory,
  // not the model, is the limit.
  static constexpr std::size_t kMaxAllToAllRanks = 2048;

  // Throws InputError for fewer than 2 or more than kMaxRanks ranks (kMaxAllToAllRanks for AllToAll), or a root
  // out of range.
  DirectPlan(CollectiveOp op, std::size_t ranks, Bytes size, Rank root = Rank{0});

  std::string_view algorithm() const override { return to_string(Algorithm::direct); }
  CollectiveOp op() const override { return op_; }
  std::size_t rank_count() const override { return n_; }
  Bytes size() const override { return size_; }
  std::uint32_t step_count(Rank rank) const override;
  void step(Rank rank, std::uint32_t step, PlanStep& out) const override;
  std::optional<std::uint32_t> uniform_pattern(std::uint32_t step) const override;

 private:
  CollectiveOp op_;
  Bytes size_;
  std::uint32_t n_;
  Rank root_;
};

}  // namespace syncsim
