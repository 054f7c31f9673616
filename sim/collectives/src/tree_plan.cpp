#include "syncsim/collectives/tree_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "syncsim/collectives/double_binary_tree.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

// Every rank in exactly one node: the nodes as given, or one node per rank.
std::vector<std::vector<std::uint32_t>> nodes_of(std::size_t ranks, const std::vector<std::vector<Rank>>& hosts) {
  std::vector<std::vector<std::uint32_t>> nodes;
  if (hosts.empty()) {
    for (std::uint32_t r = 0; r < ranks; ++r) nodes.push_back({r});
    return nodes;
  }
  std::vector<bool> seen(ranks, false);
  for (const auto& host : hosts) {
    if (host.empty()) throw InputError("a tree's node must hold at least one rank");
    auto& members = nodes.emplace_back();
    for (const Rank r : host) {
      if (r.value() >= ranks || seen[r.value()]) {
        throw InputError(fmt::format("a tree's nodes must hold each of the {} ranks once (rank {})", ranks, r.value()));
      }
      seen[r.value()] = true;
      members.push_back(r.value());
    }
  }
  if (std::count(seen.begin(), seen.end(), true) != static_cast<std::ptrdiff_t>(ranks)) {
    throw InputError(fmt::format("a tree's nodes must hold each of the {} ranks once", ranks));
  }
  return nodes;
}

// The chain index a child node's head attaches to, by the parent's child slot (see the header's table).
std::size_t attach_index(TreePattern pattern, std::uint32_t slot, std::size_t chain_length) {
  if (chain_length < 2) return 0;  // NCCL: one GPU per node uses the TREE pattern
  switch (pattern) {
    case TreePattern::tree:
      return 0;
    case TreePattern::split_tree:
      return 1;
    case TreePattern::balanced_tree:
      return slot == 0 ? 1 : 0;
  }
  return 0;
}

}  // namespace

TreePlan::TreePlan(CollectiveOp op, std::size_t ranks, Bytes size, TreeOptions options)
    : op_(op), size_(size), n_(static_cast<std::uint32_t>(ranks)), slices_(options.pipeline_slices) {
  if (ranks < 2) throw InputError(fmt::format("a tree needs at least 2 ranks, got {}", ranks));
  if (ranks > std::uint32_t{1} << 30) throw InputError(fmt::format("a tree of {} ranks is too large", ranks));
  if (size.value < 0) throw InputError("a collective's size must not be negative");
  if (op == CollectiveOp::reduce_scatter || op == CollectiveOp::all_gather || op == CollectiveOp::alltoall) {
    throw InputError(fmt::format(
        "the tree algorithm cannot run {}: a tree moves one buffer to or from its root, while {} leaves every rank "
        "a different piece (use ring, halving_doubling or direct)",
        to_string(op), to_string(op)));
  }
  if (slices_ == 0) throw InputError("pipeline slices must be at least 1");
  if (options.tree > 1) throw InputError(fmt::format("a double binary tree has trees 0 and 1, not {}", options.tree));
  if (options.root.value() >= ranks) {
    throw InputError(fmt::format("root {} does not exist among {} ranks", options.root.value(), ranks));
  }
  const auto nodes = nodes_of(ranks, options.hosts);
  const auto node_count = static_cast<std::uint32_t>(nodes.size());
  const bool rooted = op != CollectiveOp::allreduce;

  // Re-rooting swaps the tree root's node with the root rank's node; AllReduce keeps NCCL's roots.
  const std::uint32_t natural_root = double_binary_tree_root(node_count, options.tree);
  std::uint32_t root_node = natural_root;
  if (rooted) {
    for (std::uint32_t h = 0; h < node_count; ++h) {
      if (std::find(nodes[h].begin(), nodes[h].end(), options.root.value()) != nodes[h].end()) root_node = h;
    }
  }
  const auto swapped = [&](std::uint32_t h) {
    return h == natural_root ? root_node : h == root_node ? natural_root : h;
  };

  // Each node's chain: its GPUs from the chain's entry GPU on (the root rank first in a re-rooted node).
  std::vector<std::vector<std::uint32_t>> chains(node_count);
  const std::uint32_t pairs = std::max<std::uint32_t>(1, options.chains);
  for (std::uint32_t h = 0; h < node_count; ++h) {
    const auto& members = nodes[h];
    const std::size_t g = members.size();
    std::size_t start = (options.chain % pairs) * std::max<std::size_t>(1, g / pairs) % g;
    if (rooted && h == root_node) {
      start =
          static_cast<std::size_t>(std::find(members.begin(), members.end(), options.root.value()) - members.begin());
    }
    for (std::size_t i = 0; i < g; ++i) chains[h].push_back(members[(start + i) % g]);
  }

  parent_.assign(n_, 0);
  children_.assign(n_, {});
  child_count_.assign(n_, 0);
  for (std::uint32_t h = 0; h < node_count; ++h) {
    const auto& chain = chains[h];
    for (std::size_t i = 1; i < chain.size(); ++i) add_edge(chain[i - 1], chain[i]);
  }
  // Child nodes' heads, in node order so that a GPU's children are listed deterministically.
  for (std::uint32_t label = 0; label < node_count; ++label) {
    const TreeLinks links = double_binary_tree_links(node_count, options.tree, label);
    const std::uint32_t h = swapped(label);
    if (!links.parent) {
      root_ = Rank{chains[h].front()};
      parent_[root_.value()] = root_.value();
      continue;
    }
    const auto& above = chains[swapped(*links.parent)];
    add_edge(above[attach_index(options.pattern, links.slot, above.size())], chains[h].front());
  }
  // D, by walking up from every rank (the depth is at most n).
  for (std::uint32_t r = 0; r < n_; ++r) {
    std::uint32_t d = 0;
    for (std::uint32_t q = r; !is_root(q); q = parent_[q]) ++d;
    depth_ = std::max(depth_, d);
  }
}

void TreePlan::add_edge(std::uint32_t parent, std::uint32_t child) {
  SYNCSIM_INVARIANT(child_count_[parent] < 3, "a tree GPU has at most three children (NCCL_MAX_TREE_ARITY)");
  parent_[child] = parent;
  children_[parent][child_count_[parent]++] = child;
}

std::optional<Rank> TreePlan::parent(Rank rank) const {
  if (is_root(rank.value())) return std::nullopt;
  return Rank{parent_[rank.value()]};
}

std::vector<Rank> TreePlan::children(Rank rank) const {
  std::vector<Rank> out;
  for (std::uint32_t c = 0; c < child_count_[rank.value()]; ++c) out.push_back(Rank{children_[rank.value()][c]});
  return out;
}

std::uint32_t TreePlan::step_count(Rank participant) const {
  const std::uint32_t r = participant.value() % n_;
  const bool down = op_ == CollectiveOp::broadcast || participant.value() >= n_;
  const bool leaf = child_count_[r] == 0;
  if (is_root(r)) {
    if (down && op_ == CollectiveOp::allreduce) return 0;  // the root's up stream turns the slices around
    return op_ == CollectiveOp::allreduce ? slices_ + 1 : slices_;
  }
  return leaf ? slices_ : slices_ + 1;
}

void TreePlan::step(Rank participant, std::uint32_t t, PlanStep& out) const {
  out.clear();
  const std::uint32_t r = participant.value() % n_;
  const std::uint32_t k = slices_;
  const double slice = static_cast<double>(size_.value) / k;
  const std::uint32_t children = child_count_[r];
  const bool down = op_ == CollectiveOp::broadcast || participant.value() >= n_;
  // Down streams of AllReduce are participants n..2n-1; Broadcast's are the ranks themselves.
  const std::uint32_t down_base = op_ == CollectiveOp::allreduce ? n_ : 0;
  const auto send_down = [&](std::uint32_t j) {
    for (std::uint32_t c = 0; c < children; ++c)
      out.sends.push_back(PlanSend{Rank{down_base + children_[r][c]}, slice, j, j});
  };

  if (!down) {
    // Up: receive slice t from the children and add it in, send slice t-1 (a leaf: slice t) to the parent; the
    // AllReduce root sends slice t-1 down instead.
    if (children > 0 && t < k) {
      out.recv_count = children;
      out.reduce_bytes = children * slice;
    }
    if (is_root(r)) {
      if (op_ == CollectiveOp::allreduce && t >= 1) send_down(t - 1);
    } else if (children == 0) {
      out.sends.push_back(PlanSend{Rank{parent_[r]}, slice, t, t});
    } else if (t >= 1) {
      out.sends.push_back(PlanSend{Rank{parent_[r]}, slice, t - 1, t - 1});
    }
    return;
  }
  // Down: receive slice t from the parent, forward slice t-1 to the children; the Broadcast root sends slice t.
  if (is_root(r)) {
    send_down(t);
    return;
  }
  if (t < k) out.recv_count = 1;
  if (t >= 1) send_down(t - 1);
}

// Every edge a participant sends on carries each of the k slices once: the up stream sends to its parent (the
// AllReduce root turns them down to its children's down streams), a down stream to its children.
void TreePlan::send_totals(Rank participant, std::vector<PeerSends>& out) const {
  out.clear();
  const std::uint32_t r = participant.value() % n_;
  const std::uint32_t k = slices_;
  const double bytes = static_cast<double>(size_.value) / k * k;
  const bool down = op_ == CollectiveOp::broadcast || participant.value() >= n_;
  const std::uint32_t down_base = op_ == CollectiveOp::allreduce ? n_ : 0;
  const bool to_children =
      down ? !(is_root(r) && op_ == CollectiveOp::allreduce) : is_root(r) && op_ == CollectiveOp::allreduce;
  if (to_children) {
    for (std::uint32_t c = 0; c < child_count_[r]; ++c) out.push_back({Rank{down_base + children_[r][c]}, bytes, k});
  } else if (!down && !is_root(r)) {
    out.push_back({Rank{parent_[r]}, bytes, k});
  }
}

std::vector<std::uint32_t> TreePlan::relabelling_of(const CollectivePlan& other_plan) const {
  const auto* other = dynamic_cast<const TreePlan*>(&other_plan);
  if (other == nullptr || other->op_ != op_ || other->n_ != n_ || other->size_ != size_ || other->slices_ != slices_) {
    return {};
  }
  // Walk both trees from their roots, matching the i-th child with the i-th child: a rank's steps depend only on
  // whether it is the root, its parent and its children in order (step()), so matched shapes run alike.
  std::vector<std::uint32_t> rank_map(n_, ~std::uint32_t{0});
  std::vector<std::uint32_t> stack{other->root_.value()};
  rank_map[other->root_.value()] = root_.value();
  std::size_t matched = 1;
  while (!stack.empty()) {
    const std::uint32_t theirs = stack.back();
    stack.pop_back();
    const std::uint32_t mine = rank_map[theirs];
    if (other->child_count_[theirs] != child_count_[mine]) return {};
    for (std::uint32_t c = 0; c < child_count_[mine]; ++c) {
      const std::uint32_t child = other->children_[theirs][c];
      rank_map[child] = children_[mine][c];
      stack.push_back(child);
      ++matched;
    }
  }
  if (matched != n_) return {};
  std::vector<std::uint32_t> map(participant_count());
  for (std::uint32_t p = 0; p < map.size(); ++p) map[p] = rank_map[p % n_] + (p >= n_ ? n_ : 0);
  return map;
}

}  // namespace syncsim
