#pragma once
// NCCL's tree: a chain of the GPUs inside each node, and a double binary tree of the nodes across the network
// (double_binary_tree.hpp), with the reduction going up and the broadcast coming down on separate streams, as
// NCCL's tree kernels split their threads (NCCL 2.30 src/device/all_reduce.h, runTreeSplit). AllReduce, Reduce and
// Broadcast; without host structure every rank is its own node (the same construction at rank level).
//
// Chains and their attachment (NCCL 2.30 src/graph/connect.cc: ncclTopoPreset, connectTrees). Chain c of a node
// is its GPUs in local order starting at the channel pair's entry GPU; chain[0], the head, connects to the parent
// node, chain[i] is the parent of chain[i+1], and the child nodes' heads attach to the GPU the search pattern
// names (src/graph/search.cc, src/include/graph.h):
//
//   pattern         parent      child slot 0   child slot 1
//   TREE            chain[0]    chain[0]       chain[0]
//   SPLIT_TREE      chain[0]    chain[1]       chain[1]
//   BALANCED_TREE   chain[0]    chain[1]       chain[0]
//
// The default is TREE: NCCL's search starts with BALANCED_TREE but retries TREE on sm90 and newer ("Try a simpler
// tree"), one GPU per node always uses TREE, and TREE keeps every inter-node edge head to head, on one rail of a
// rail-optimized fabric (chain c of every node starts at the same local GPU), where BALANCED_TREE's edges to
// chain[1] cross rails through the spines (NCCL avoids that with PXN, which the plans do not model).
//
//   4 nodes of 4 GPUs, tree 0, BALANCED_TREE (node n, GPU g: "n.g"):
//
//      node 0:  0.0 - 0.1 - 0.2 - 0.3               node 0's only child (node 2) is in slot 1: at 0.0
//                |
//      node 2:  2.0 - 2.1 - 2.2 - 2.3               node 2's children: node 1 (slot 0) at 2.1, node 3 at 2.0
//              /       \     (node 2: two child nodes)
//      node 3: 3.0...   node 1: 1.0 - 1.1 - ...
//
// Channels: plan c runs tree c % 2 on chain c / 2, so each channel pair runs the two trees on the same chain (NCCL
// duplicates every tree channel for the second tree) and every node is interior in at most one of the pair (with
// an odd node count, node 0 in both).
// Reduce and Broadcast re-root: the root rank's node takes the tree root's place and its chain starts at the root.
//
// Participants (collective_plan.hpp). AllReduce has 2n: participant r is rank r's reduction stream (up), n + r its
// broadcast stream (down), both on rank r's GPU; the root's up stream turns each reduced slice around to its
// children's down streams. Reduce runs the up streams only, Broadcast the down streams only (n participants).
//
// Pipelining, k slices of S/k. A send holds its sender for beta = S/(k B) (the executor frees a sender once its last
// byte left) and arrives alpha later. At its step t a stream receives slice t and sends slice t-1 (a leaf's up
// stream sends slice t, the Broadcast root sends slice t): every hop forwards slice j while slice j+1 arrives. With
// D the depth of the deepest rank (edges from the root), slice k-1 reaches the root after D (alpha + beta) + (k-1)
// beta and the deepest leaf D (alpha + beta) later, because the down streams never wait for the up streams.
//
// Cost where every edge of the tree has its own link (a full mesh; on a shared switch or NIC a rank's children
// share its link):
//   AllReduce            2 D alpha + (2D + k - 1) S/(k B)   =  2 D alpha + S/B (1 + (2D - 1)/k)
//   Reduce, Broadcast    D alpha + (D + k - 1) S/(k B)
// Store-and-forward (k = 1) costs 2D (alpha + S/B). ReduceScatter and AllGather leave every rank a different piece:
// a tree cannot run them.
#include <array>
#include <optional>
#include <vector>

#include "syncsim/collectives/algorithm.hpp"
#include "syncsim/collectives/collective_plan.hpp"

namespace syncsim {

enum class TreePattern { tree, split_tree, balanced_tree };

struct TreeOptions {
  Rank root{0};  // Reduce and Broadcast: the tree is re-rooted here
  std::uint32_t pipeline_slices = 1;
  std::uint32_t tree = 0;  // 0 or 1: which of the two trees of the double binary tree
  // Ranks grouped by node (PlanContext::hosts); empty: every rank is its own node.
  std::vector<std::vector<Rank>> hosts;
  std::uint32_t chain = 0;   // which chain: its entry GPU is chain * (g / chains) of each node's g GPUs
  std::uint32_t chains = 1;  // how many chains the channels use (channel pairs)
  TreePattern pattern = TreePattern::tree;
};

class TreePlan final : public CollectivePlan {
 public:
  // Throws InputError for fewer than 2 ranks, a root out of range, no slices, a tree other than 0 or 1, hosts that
  // are not a partition of the ranks, or ReduceScatter/AllGather.
  TreePlan(CollectiveOp op, std::size_t ranks, Bytes size, TreeOptions options = {});

  std::string_view algorithm() const override { return to_string(Algorithm::tree); }
  CollectiveOp op() const override { return op_; }
  std::size_t rank_count() const override { return n_; }
  Bytes size() const override { return size_; }
  std::size_t participant_count() const override { return op_ == CollectiveOp::allreduce ? 2 * n_ : n_; }
  Participant participant(std::uint32_t index) const override { return {Rank{index % n_}, std::nullopt}; }
  std::uint32_t step_count(Rank participant) const override;
  void step(Rank participant, std::uint32_t step, PlanStep& out) const override;
  void send_totals(Rank participant, std::vector<PeerSends>& out) const override;
  // Another tree of the same operation, ranks, size and slices whose shape is this one's with the ranks renamed,
  // each GPU's children in the same order (the chains of a channel pair on every rail start at another GPU).
  std::vector<std::uint32_t> relabelling_of(const CollectivePlan& other) const override;

  // The tree's shape, by rank.
  Rank root() const { return root_; }
  std::optional<Rank> parent(Rank rank) const;
  std::vector<Rank> children(Rank rank) const;
  std::uint32_t child_count(Rank rank) const { return child_count_[rank.value()]; }
  std::uint32_t depth() const { return depth_; }  // D: edges from the root to the deepest rank

 private:
  bool is_root(std::uint32_t rank) const { return rank == root_.value(); }
  void add_edge(std::uint32_t parent, std::uint32_t child);

  CollectiveOp op_;
  Bytes size_;
  std::uint32_t n_;
  std::uint32_t slices_;
  Rank root_{0};
  std::vector<std::uint32_t> parent_;  // by rank; the root's is itself
  std::vector<std::array<std::uint32_t, 3>> children_;
  std::vector<std::uint32_t> child_count_;
  std::uint32_t depth_ = 0;
};

}  // namespace syncsim
