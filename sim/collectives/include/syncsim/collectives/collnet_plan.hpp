#pragma once
// CollNetDirect and CollNetChain AllReduce: InfiniBand SHARP, the network switches reduce, as NCCL runs it (NCCL 2.30
// src/device/all_reduce.h, runCollNetDirect / runCollNetChain; src/graph/tuning.cc for the costs).
//
// Each node's GPU q uses rail q: its NIC hangs off rail q's leaf switch, and the leaves of a rail (with the switch
// above them when there are several) form that rail's SHARP tree (SharpTree): the heads send partial sums up, the
// switches add them at line rate, and the result comes back down to every head.
//
//   CollNetDirect, per slice of S/k on g GPUs per node (each GPU the head of shard q = S/(kg) of it):
//     (A) every GPU sends shard q to GPU q of its node (NVLink), which adds the g parts
//     (B) head q sends its node's shard q to its leaf ──▶ [leaf: + (root: +)] ──▶ the sum back to every head q
//     (E) head q sends the reduced shard q to the other g-1 GPUs of its node
//   CollNetChain, per channel c (head: the node's GPU c mod g) and slice of S/k:
//     up the node's chain to the head (g-1 NVLink hops, each adds), the head sends the whole slice up the SHARP
//     tree, the result comes back to the head and down the chain again.
//
// What moves: each NIC carries S/g each way under CollNetDirect (S/C per channel under CollNetChain, C = g): a ring
// moves 2(n-1)/n S/g through each NIC, so SHARP about halves the network traffic, and the network sees one
// transfer up and one down instead of 2(n-1). nccl-tests' busbw still counts a ring's 2(n-1)/n S.
//
// Pipelining: slice j's stages run at consecutive steps, so later slices' uplinks overlap earlier ones' downlinks.
// Participants: the ranks, then every tree's leaves, then its root when it has one (collective_plan.hpp).
// Switches add at line rate (no reduce time); GPUs add what they receive.
//
// Costing (latency_model.hpp): Simple only; NCCL's hwLat per NVLink (or PCI) step, 3.7 us Direct and 2.8 Chain,
// and its network latency (31 and 30 us, one per round trip in NCCL's model) split over the up and the down leg.
#include <optional>
#include <vector>

#include "syncsim/collectives/algorithm.hpp"
#include "syncsim/collectives/collective_plan.hpp"
#include "syncsim/topology/router.hpp"

namespace syncsim {

bool is_collnet(Algorithm algorithm);

class CollNetPlan final : public CollectivePlan {
 public:
  // `nodes`: NCCL's nodes (equal sizes g, at least 2 of them); `trees[q]`: rail q's tree, g of them, heads[h] =
  // nodes[h][q], all of one depth. CollNetChain runs channel `channel` of `channels`, whose head is GPU
  // channel * (g / channels) mod g, so that the channels spread over the rails as rings do.
  // Throws InputError otherwise, for another operation, or for 0 slices.
  CollNetPlan(Algorithm algorithm, CollectiveOp op, std::size_t ranks, Bytes size, std::vector<std::vector<Rank>> nodes,
              std::vector<SharpTree> trees, std::uint32_t channel, std::uint32_t channels, std::uint32_t slices);

  std::string_view algorithm() const override { return to_string(algorithm_); }
  CollectiveOp op() const override { return CollectiveOp::allreduce; }
  std::size_t rank_count() const override { return ranks_; }
  Bytes size() const override { return size_; }
  std::size_t participant_count() const override { return ranks_ + switches_.size(); }
  Participant participant(std::uint32_t index) const override;
  std::uint32_t step_count(Rank) const override { return step_count_; }
  void step(Rank who, std::uint32_t step, PlanStep& out) const override;

 private:
  struct TreeSwitch {
    std::uint32_t tree = 0;
    std::optional<std::uint32_t> leaf;  // nullopt: the tree's root above its leaves
    NodeId node;
    std::vector<Rank> heads;  // a leaf's: the heads whose NICs hang off it
  };
  void direct_rank_step(std::uint32_t rank, std::uint32_t step, PlanStep& out) const;
  void chain_rank_step(std::uint32_t rank, std::uint32_t step, PlanStep& out) const;
  void switch_step(const TreeSwitch& sw, std::uint32_t step, PlanStep& out) const;
  // Whether slice `step - offset` exists.
  bool slice_at(std::uint32_t step, std::uint32_t offset) const { return step >= offset && step - offset < slices_; }
  double slice_bytes() const { return static_cast<double>(size_.value) / slices_; }
  // Bytes one tree moves per slice: a shard under Direct, the whole slice under Chain.
  double tree_bytes() const;
  Rank leaf_participant(std::uint32_t tree, std::uint32_t leaf) const;
  // Chain only: the rank at index i of node h's chain (the head last).
  Rank chain_member(std::uint32_t node, std::uint32_t index) const;
  std::uint32_t chain_recv_down(std::uint32_t index) const;

  Algorithm algorithm_;
  std::size_t ranks_;
  Bytes size_;
  std::vector<std::vector<Rank>> nodes_;
  std::vector<SharpTree> trees_;
  std::uint32_t chain_tree_ = 0;  // CollNetChain: the channel's rail
  std::uint32_t slices_;
  std::uint32_t depth_ = 1;  // 1: a leaf is the root; 2: leaves under a root
  std::uint32_t up_ = 0;     // the step offset at which heads send up (the leaves receive)
  std::uint32_t step_count_ = 0;
  std::vector<std::uint32_t> node_of_, position_of_;  // by rank
  std::vector<TreeSwitch> switches_;
  std::vector<std::vector<std::uint32_t>> leaf_participant_;  // [tree][leaf] -> participant index
  std::vector<std::uint32_t> root_participant_;               // [tree] (depth 2)
};

// Slices of NCCL's CollNet chunk (up to 256 KiB, NCCL 2.30 src/enqueue.cc calcCollChunking) per channel, 1 to 16.
std::uint32_t collnet_slices(Bytes per_channel);

// The rails' SHARP trees over NCCL's nodes: for rail q, the leaf of each node's GPU q (the first network switch on
// its way to another node's GPU q), and, when there are several leaves, the switch in the middle of the route between
// two of them as the root. Empty unless there are at least 2 nodes of equal size, every tree's switches reduce
// (`sharp=on`) and all trees have one depth.
std::vector<SharpTree> sharp_trees(Router& router, const std::vector<std::vector<Rank>>& nodes);

}  // namespace syncsim
