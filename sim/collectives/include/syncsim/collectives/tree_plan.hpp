#pragma once
// Binary-tree collectives: AllReduce (reduce up, broadcast down, pipelined), Reduce and Broadcast; NCCL's double
// binary tree is two of these plans on alternating channels (NCCL src/graph/trees.cc).
//
// Tree 0 is an in-order binary tree on positions 0..n-1. Position p >= 1 sits at level lowbit(p): its children are
// p -/+ lowbit(p)/2 (a right child past n-1 is replaced by its own left child, repeatedly); position 0 is the root
// and has one child, the top T = the largest power of two <= n-1. Odd positions are the leaves.
//
//   n = 14, tree 0 (rank = position p):     tree 1 (n even: mirrored, rank = n-1-p):    positions by lowbit(p)
//
//     0 -------------- 8                      13 ------------- 5                        | 8: T, the top
//              ______/   \______                       ______/  \______                 |
//             4                12                     9                1                | 4
//           /   \             /  \                  /   \             /  \               |
//         2       6       10      \               11      7        3      \              | 2
//        / \     / \     /  \      \             /  \    /  \    /  \      \             |
//       1   3   5   7   9   11     13          12  10  8    6  4    2      0            | 1: the leaves
//
// Tree 1 puts the leaves of tree 0 inside: for even n it mirrors the ranks (rank = n-1-p), for odd n it shifts them
// (rank = p+1 mod n); either way the odd ranks, leaves of tree 0, sit at even positions, which are interior. A rank
// is thus a leaf in at most one tree, and the two trees together use every rank's links in both directions
// (PlanContext::channel parity picks the tree). Reduce and Broadcast re-root a tree on `root` by swapping the
// ranks at the root position and at root's position; the rest of the shape is kept.
//
// Pipelining, k slices of S/k. A send holds its sender for beta = S/(k B) (the executor frees a sender once its last
// byte left) and arrives alpha later. Height h (leaves 0), depth d (root 0); H = the root's height
// = floor(log2(n-1)) + 1 = the depth of the deepest leaf.
//
//   reduce up     an interior rank's step t receives slice t from its children and adds it in, and sends slice
//                 t-1 to its parent: it forwards slice j while receiving slice j+1. A leaf sends slice t at step t.
//                 Step t of a rank ends at (t + max(h,1)) beta + h alpha.
//   broadcast     the root sends slice t at step t (Broadcast) or, having finished it at step t, at step t+1
//   down          (AllReduce); a rank forwards at step t+1 the slice it received at step t. In AllReduce a rank
//                 receives slice j at step j + e, e = H + d - max(h,1): its reduce steps and broadcast steps run
//                 together, as in NCCL's tree.
//
//   Reduce, k = 3, path 1 -> 2 -> 4:
//     time ->   | beta | beta | beta | beta | beta |
//     leaf 1      s0     s1     s2
//     node 2         alpha  s0     s1     s2              node 2 sends s0 up while s1 arrives from 1
//     node 4                alpha  s0     s1     s2
//
// Cost where every transfer has its own link (a full mesh; on a shared switch a rank's two children share its
// downlink):
//   Reduce, Broadcast    H alpha + (H + k - 1) S/(k B)
//   AllReduce            (2H + 2 floor((k-1)/2)) alpha + (2H + k - 1) S/(k B)
// In AllReduce a rank's step waits for both directions: once the two streams meet, the up-going slice j+2 waits for
// the down-going slice j, so every two slices pay one round of latency (NCCL runs the directions on separate
// threads; a plan has one step stream per rank). Store-and-forward (k = 1) costs 2H (alpha + S/B).
// ReduceScatter and AllGather leave every rank a different piece: a tree cannot run them.
#include <array>
#include <optional>

#include "syncsim/collectives/algorithm.hpp"
#include "syncsim/collectives/collective_plan.hpp"

namespace syncsim {

struct TreeOptions {
  Rank root{0};  // Reduce and Broadcast: the tree is re-rooted here
  std::uint32_t pipeline_slices = 1;
  std::uint32_t tree = 0;  // 0 or 1: which of the two complementary trees (NCCL's double binary tree)
};

class TreePlan final : public CollectivePlan {
 public:
  // Throws InputError for fewer than 2 ranks, a root out of range, no slices, a tree other than 0 or 1, or
  // ReduceScatter/AllGather.
  TreePlan(CollectiveOp op, std::size_t ranks, Bytes size, TreeOptions options = {});

  std::string_view algorithm() const override { return to_string(Algorithm::tree); }
  CollectiveOp op() const override { return op_; }
  std::size_t rank_count() const override { return n_; }
  Bytes size() const override { return size_; }
  std::uint32_t step_count(Rank rank) const override;
  void step(Rank rank, std::uint32_t step, PlanStep& out) const override;

  // The tree's shape, by rank.
  Rank root() const { return at(0); }
  std::optional<Rank> parent(Rank rank) const;
  std::uint32_t child_count(Rank rank) const { return children_of(position(rank)).count; }
  std::uint32_t height() const { return height_; }  // H, the root's height

 private:
  struct Children {
    std::array<std::uint32_t, 2> position{};
    std::uint32_t count = 0;
  };
  std::uint32_t position(Rank rank) const;
  Rank at(std::uint32_t position) const;
  Children children_of(std::uint32_t position) const;
  std::uint32_t parent_of(std::uint32_t position) const;
  std::uint32_t depth_of(std::uint32_t position) const;
  std::uint32_t pace_of(std::uint32_t position) const;  // hh = max(height, 1)
  std::uint32_t broadcast_offset(std::uint32_t position) const;

  CollectiveOp op_;
  Bytes size_;
  std::uint32_t n_;
  std::uint32_t slices_;
  std::uint32_t tree_;
  std::uint32_t top_;     // T, the root's only child position
  std::uint32_t height_;  // H
  std::uint32_t swap_a_;  // re-rooting swaps these two ranks (equal when nothing is swapped)
  std::uint32_t swap_b_;
};

}  // namespace syncsim
