#pragma once
// Hierarchical AllReduce: intra-host ring reduce-scatter, inter-host ring AllReduce per rail, intra-host ring
// all-gather (as Horovod's and NCCL's hierarchical schemes do on multi-GPU servers).
//
// h hosts of g ranks each, as PlanContext::hosts lists them; local index i = a rank's place in its host's list.
// The buffer is cut into g blocks of S/g, block i into h pieces of S/(g h) (PlanSend::chunk counts these n = g h
// pieces; a block of S/g is sent as chunk i*h with bytes S/g).
//
//   host 0: a0 a1 a2 a3        phase 1: ring reduce-scatter inside each host, g-1 steps of S/g: local i ends
//   host 1: b0 b1 b2 b3                 with block i summed over its host
//      |  |  |  |              phase 2: ring AllReduce of block i among the h ranks of local index i (one ring
//     rail 0 1 2 3                      per rail: a0 -> b0 -> a0, a1 -> b1 -> a1, ...), 2(h-1) steps of S/(g h)
//                              phase 3: ring all-gather inside each host, g-1 steps of S/g
//
// Every rank runs the three phases back to back; within a phase every step is uniform (one send, one receive of
// equal bytes per rank), so the executor's bulk path applies.
//
// Cost, uncontended, a_intra/B_intra inside a host and a_inter/B_inter between hosts:
//     (g-1) (a_intra + S/(g B_intra))                      reduce-scatter in the host
//   + 2 (h-1) (a_inter + S/(g h B_inter))                  AllReduce across hosts, all rails at once
//   + (g-1) (a_intra + S/(g B_intra))                      all-gather in the host
// Only AllReduce: the other reductions and gathers gain nothing from the split (a ring or tree runs them directly);
// AllToAll's hierarchical algorithm is hierarchical_alltoall_plan.hpp.
#include <vector>

#include "syncsim/collectives/algorithm.hpp"
#include "syncsim/collectives/collective_plan.hpp"
#include "syncsim/collectives/host_layout.hpp"

namespace syncsim {

class HierarchicalPlan final : public CollectivePlan {
 public:
  // Throws InputError unless `hosts` lists every rank 0..ranks-1 exactly once in at least 2 hosts of equal size,
  // and for operations other than AllReduce.
  HierarchicalPlan(CollectiveOp op, std::size_t ranks, Bytes size, const std::vector<std::vector<Rank>>& hosts);

  std::string_view algorithm() const override { return to_string(Algorithm::hierarchical); }
  CollectiveOp op() const override { return op_; }
  std::size_t rank_count() const override { return layout_.host_of.size(); }
  Bytes size() const override { return size_; }
  std::uint32_t step_count(Rank rank) const override;
  void step(Rank rank, std::uint32_t step, PlanStep& out) const override;
  std::optional<std::uint32_t> uniform_pattern(std::uint32_t step) const override;

  std::uint32_t host_count() const { return layout_.hosts; }
  std::uint32_t ranks_per_host() const { return layout_.per_host; }

 private:
  enum class Phase : std::uint32_t { intra_reduce_scatter, inter_reduce_scatter, inter_all_gather, intra_all_gather };
  struct Place {
    Phase phase;
    std::uint32_t index;  // step within the phase
  };
  Place place(std::uint32_t step) const;

  CollectiveOp op_;
  Bytes size_;
  HostLayout layout_;
};

}  // namespace syncsim
