#pragma once
// Direct (all-to-all) collectives: every rank talks to every other rank at once, in one or two steps. Few steps,
// so few latencies, but n(n-1) flows per step: for small groups only.
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
// Cost on one switch (a rank's n-1 sends share its uplink, its n-1 receives its downlink):
//   AllReduce                    2 (alpha + (n-1) S/(n B))
//   ReduceScatter, AllGather       alpha + (n-1) S/(n B)
//   Broadcast, Reduce              alpha + (n-1) S/B          (the root's link carries n-1 whole buffers)
#include "syncsim/collectives/algorithm.hpp"
#include "syncsim/collectives/collective_plan.hpp"

namespace syncsim {

class DirectPlan final : public CollectivePlan {
 public:
  // Past this, n(n-1) flows per step is a mistake rather than a choice.
  static constexpr std::size_t kMaxRanks = 64;

  // Throws InputError for fewer than 2 or more than kMaxRanks ranks, or a root out of range.
  DirectPlan(CollectiveOp op, std::size_t ranks, Bytes size, Rank root = Rank{0});

  std::string_view algorithm() const override { return to_string(Algorithm::direct); }
  CollectiveOp op() const override { return op_; }
  std::size_t rank_count() const override { return n_; }
  Bytes size() const override { return size_; }
  std::uint32_t step_count(Rank rank) const override;
  void step(Rank rank, std::uint32_t step, PlanStep& out) const override;

 private:
  CollectiveOp op_;
  Bytes size_;
  std::uint32_t n_;
  Rank root_;
};

}  // namespace syncsim
