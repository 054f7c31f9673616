#pragma once
// NCCL's double binary tree of nodes (NCCL 2.30 src/graph/trees.cc, ncclGetBtree and ncclGetDtree): two binary
// trees on the same N nodes such that a node is interior in at most one of them, so that together they use every
// node's network links about equally in both directions.
//
// Tree 0 is an in-order binary tree on positions 0..N-1. Position p >= 1 sits at level lowbit(p): its children are
// p -/+ lowbit(p)/2 (a right child past N-1 is replaced by its own left child, repeatedly); position 0 is the root
// and has one child, in its right slot: T = the largest power of two <= N-1. Odd positions are the leaves. Tree 1
// mirrors the nodes for even N (node = N-1-p) and shifts them for odd N (node = p+1 mod N), so the leaves of tree 0
// (odd nodes) sit at even positions of tree 1, which are interior.
//
//   N = 14, tree 0 (node = position):      tree 1 (N even: mirrored, node = 13-p):
//
//     0 -------------- 8                      13 ------------- 5       | level 8: T
//              ______/   \______                       ______/  \______
//             4                12                     9                1    | level 4
//           /   \             /  \                  /   \             /  \   |
//         2       6       10      \               11      7        3      \    | level 2
//        / \     / \     /  \      \             /  \    /  \    /  \      \   |
//       1   3   5   7   9   11     13          12  10  8    6  4    2      0    | leaves
//
// A child fills slot 0 of its parent when its position is below the parent's (the left child), slot 1 otherwise;
// NCCL's connectTrees (src/graph/connect.cc) attaches the two slots to possibly different GPUs of the parent node
// (see tree_plan.hpp). The root's one child is always in slot 1.
#include <array>
#include <cstdint>
#include <optional>

namespace syncsim {

struct TreeLinks {
  std::optional<std::uint32_t> parent;                   // nullopt at the root
  std::uint32_t slot = 0;                                // which of the parent's slots this node fills
  std::array<std::optional<std::uint32_t>, 2> children;  // by slot
};

// Node `node`'s links in tree `tree` (0 or 1) of the double binary tree on `nodes` nodes (nodes >= 1).
TreeLinks double_binary_tree_links(std::uint32_t nodes, std::uint32_t tree, std::uint32_t node);
// The root: node 0 in tree 0; in tree 1 node N-1 for even N, node 1 for odd N (node 0 when N = 1).
std::uint32_t double_binary_tree_root(std::uint32_t nodes, std::uint32_t tree);

}  // namespace syncsim
