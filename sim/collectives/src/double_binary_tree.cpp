#include "syncsim/collectives/double_binary_tree.hpp"

#include <bit>

namespace syncsim {

namespace {
std::uint32_t lowbit(std::uint32_t p) {
  return p & (~p + 1);
}
// The position one level up in the full in-order tree on 1..2T-1 (it may lie past n-1).
std::uint32_t level_up(std::uint32_t p) {
  const std::uint32_t b = lowbit(p);
  return (p ^ b) | (b << 1);
}

std::uint32_t position_of(std::uint32_t n, std::uint32_t tree, std::uint32_t node) {
  if (tree == 0) return node;
  return n % 2 == 0 ? n - 1 - node : (node + n - 1) % n;
}
std::uint32_t node_at(std::uint32_t n, std::uint32_t tree, std::uint32_t p) {
  if (tree == 0) return p;
  return n % 2 == 0 ? n - 1 - p : (p + 1) % n;
}
}  // namespace

std::uint32_t double_binary_tree_root(std::uint32_t nodes, std::uint32_t tree) {
  return node_at(nodes, tree, 0);
}

TreeLinks double_binary_tree_links(std::uint32_t n, std::uint32_t tree, std::uint32_t node) {
  TreeLinks links;
  const std::uint32_t p = position_of(n, tree, node);
  if (n < 2) return links;
  const std::uint32_t top = std::bit_floor(n - 1);
  if (p == 0) {
    links.children[1] = node_at(n, tree, top);
    return links;
  }
  std::uint32_t up = 0;
  if (p != top) {
    up = level_up(p);
    while (up >= n) up = level_up(up);  // climbs to T at the latest
  }
  links.parent = node_at(n, tree, up);
  links.slot = p < up ? 0 : 1;
  const std::uint32_t half = lowbit(p) >> 1;
  if (half == 0) return links;                     // odd positions are leaves
  links.children[0] = node_at(n, tree, p - half);  // the left subtree is always complete
  std::uint32_t right = p + half;
  while (right >= n && lowbit(right) > 1) right -= lowbit(right) >> 1;
  if (right < n) links.children[1] = node_at(n, tree, right);
  return links;
}

}  // namespace syncsim
