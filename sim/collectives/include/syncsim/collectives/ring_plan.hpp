#pragma once
// Ring collectives: AllReduce, ReduceScatter, AllGather and (pipelined) Broadcast.
//
// n ranks in ring order p0 -> p1 -> ... -> p(n-1) -> p0; the buffer is cut into n chunks of S/n bytes.
// AllReduce = reduce-scatter then all-gather, 2(n-1) steps. At step s, position i sends one chunk to i+1:
//
//   reduce-scatter (s = 0 .. n-2): send chunk (i - s - 1) mod n, receive chunk (i - s - 2) mod n and add it in;
//                                   after n-1 steps position i holds the full sum of chunk i.
//   all-gather (t = s-n+1 = 0 .. n-2): send chunk (i - t) mod n onward (first the one it owns), receive and keep.
//
//     reduce-scatter step 0      step 1                    n = 4, chunks a b c d (a = chunk 0)
//      p0 --d--> p1          p0 --c--> p1
//      ^          |          ^          |
//      c          a          b          d        ...after step 2, p0 holds a+a+a+a, p1 b..., p2 c..., p3 d...
//      |          v          |          v
//      p3 <--b-- p2          p3 <--a-- p2
//
// Cost on links of latency alpha and bandwidth B, uncontended (each step moves S/n over one route):
//   AllReduce      2(n-1) * (alpha + S/(n B))          busbw -> B
//   ReduceScatter   (n-1) * (alpha + S/(n B))          (S = each rank's input)
//   AllGather       (n-1) * (alpha + S/(n B))          (S = the gathered output)
//   Broadcast, k pipeline slices from the root along the ring:  (n-2+k) * (alpha + S/(k B))
#include <vector>

#include "syncsim/collectives/algorithm.hpp"
#include "syncsim/collectives/collective_plan.hpp"

namespace syncsim {

struct RingOptions {
  // Ring order as a list of ranks; empty means 0, 1, ..., n-1 (GPU index order).
  std::vector<Rank> order = {};
  // Broadcast only: slices the buffer is pipelined in (1 = store and forward the whole buffer).
  std::uint32_t pipeline_slices = 1;
  Rank root{0};
};

class RingPlan final : public CollectivePlan {
 public:
  // Throws InputError for fewer than 2 ranks, an order that is not a permutation, a root out of range, or
  // pipelining on an operation that does not take it.
  RingPlan(CollectiveOp op, std::size_t ranks, Bytes size, RingOptions options = {});

  std::string_view algorithm() const override { return to_string(Algorithm::ring); }
  CollectiveOp op() const override { return op_; }
  std::size_t rank_count() const override { return order_.size(); }
  Bytes size() const override { return size_; }
  std::uint32_t step_count(Rank rank) const override;
  void step(Rank rank, std::uint32_t step, PlanStep& out) const override;
  std::optional<std::uint32_t> uniform_pattern(std::uint32_t step) const override;
  // Another ring of the same operation, ranks, size and slices: a rank's steps depend only on its place in the ring
  // (from the root, for Broadcast and Reduce), so the rank at each place maps to this ring's rank there.
  std::vector<std::uint32_t> relabelling_of(const CollectivePlan& other) const override;

 private:
  std::uint32_t position(Rank rank) const { return position_of_[rank.value()]; }
  Rank at(std::uint32_t position) const { return order_[position % order_.size()]; }
  void broadcast_step(std::uint32_t position, std::uint32_t step, PlanStep& out) const;

  CollectiveOp op_;
  Bytes size_;
  std::vector<Rank> order_;
  std::vector<std::uint32_t> position_of_;
  std::uint32_t slices_;
  std::uint32_t root_position_ = 0;
};

}  // namespace syncsim
