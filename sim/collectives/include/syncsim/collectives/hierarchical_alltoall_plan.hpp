#pragma once
// Hierarchical AllToAll: first inside each host, over NVLink, every GPU hands each local peer what goes to that
// peer's rail; then one all-to-all per rail across the hosts. This is NCCL's PXN ("PCI x NVLink", NCCL 2.12+:
// data for a GPU of another node is moved over NVLink to the local GPU on the destination's rail, which sends it
// on its own NIC) carried to the whole exchange, as DeepEP's and the hierarchical MoE dispatchers do.
//
// h hosts of g ranks each, as PlanContext::hosts lists them; (a, i) = local GPU i of host a; n = g h ranks; block
// (src, dst) = src's S/n bytes for dst (collective_op.hpp: S is each rank's buffer).
//
//   host 0: (0,0) (0,1)        step 0  inside each host: (a, i) sends to (a, j), j != i, its h blocks for
//   host 1: (1,0) (1,1)                (b, j), every host b: g-1 sends of S/g. (a, j) now holds, from every GPU of
//             |     |                  its host, what goes to rail j (its own blocks included).
//           rail 0 rail 1      step 1  on each rail: (a, j) sends to (b, j), b != a, the g blocks of host a for
//                                      (b, j): h-1 sends of S/h. Blocks for (a, j) itself arrived in step 0.
//
// Why this order rather than the reverse (rail first, then NVLink, as DeepEP's dispatch does): both move the same
// bytes, but aggregating before the network makes the network messages g times larger (S/h instead of S/n) and g
// times fewer per GPU, each rank's network traffic stays on its own rail (a rail-optimized fabric needs no spine),
// and a host's NVLink phase does not wait for the slowest NIC. Its price is the NVLink phase itself, which the
// direct algorithm overlaps with the network: in this fluid model direct is faster whenever the fabric carries
// cross-rail traffic at full rate, and hierarchical wins where it does not (a rail-only or oversubscribed spine)
// or where per-message latency dominates. Every step is symmetric, so the executor's bulk path applies.
//
// Cost, uncontended, a GPU's NVLink B_intra to its host's switch and NIC B_inter on its rail:
//     (a_intra + (g-1) S / (g B_intra))        step 0: g-1 blocks of S/g leave each GPU over its NVLink
//   + (a_inter + (h-1) S / (h B_inter))        step 1: h-1 blocks of S/h leave each GPU over its NIC
// against about a + max((g-1) S/(n B_intra), (h-1) S/(h B_inter)) for the direct algorithm where the fabric carries
// its cross-rail traffic at full rate (on a DGX-style fabric with thin spines it does not: docs/collectives.md).
#include <vector>

#include "syncsim/collectives/algorithm.hpp"
#include "syncsim/collectives/collective_plan.hpp"
#include "syncsim/collectives/host_layout.hpp"

namespace syncsim {

class HierarchicalAllToAllPlan final : public CollectivePlan {
 public:
  // Throws InputError unless `hosts` lists every rank 0..ranks-1 exactly once in at least 2 hosts of equal size.
  HierarchicalAllToAllPlan(std::size_t ranks, Bytes size, const std::vector<std::vector<Rank>>& hosts);

  std::string_view algorithm() const override { return to_string(Algorithm::hierarchical); }
  CollectiveOp op() const override { return CollectiveOp::alltoall; }
  std::size_t rank_count() const override { return layout_.host_of.size(); }
  Bytes size() const override { return size_; }
  // 2, or 1 (the rail step) with one rank per host.
  std::uint32_t step_count(Rank rank) const override;
  void step(Rank rank, std::uint32_t step, PlanStep& out) const override;
  std::optional<std::uint32_t> uniform_pattern(std::uint32_t step) const override;

  std::uint32_t host_count() const { return layout_.hosts; }
  std::uint32_t ranks_per_host() const { return layout_.per_host; }

 private:
  Bytes size_;
  HostLayout layout_;
};

}  // namespace syncsim
