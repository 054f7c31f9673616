#include "syncsim/collectives/collnet_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {
constexpr std::int64_t kCollNetChunkBytes = 256 * 1024;
constexpr std::uint32_t kMaxCollNetSlices = 16;
}  // namespace

bool is_collnet(Algorithm algorithm) {
  return algorithm == Algorithm::collnet_direct || algorithm == Algorithm::collnet_chain;
}

CollNetPlan::CollNetPlan(Algorithm algorithm, CollectiveOp op, std::size_t ranks, Bytes size,
                         std::vector<std::vector<Rank>> nodes, std::vector<SharpTree> trees, std::uint32_t channel,
                         std::uint32_t channels, std::uint32_t slices)
    : algorithm_(algorithm),
      ranks_(ranks),
      size_(size),
      nodes_(std::move(nodes)),
      trees_(std::move(trees)),
      slices_(slices) {
  if (!is_collnet(algorithm)) throw InputError(fmt::format("{} is not CollNet", to_string(algorithm)));
  if (op != CollectiveOp::allreduce) {
    throw InputError(fmt::format("{} runs AllReduce only, not {}", to_string(algorithm), to_string(op)));
  }
  if (slices_ == 0) throw InputError("CollNet needs at least one slice");
  if (nodes_.size() < 2) throw InputError("CollNet needs at least 2 nodes");
  const std::size_t g = nodes_.front().size();
  if (trees_.size() != g) {
    throw InputError(fmt::format("CollNet needs a SHARP tree per rail: {} GPUs per node, {} trees", g, trees_.size()));
  }
  node_of_.assign(ranks_, 0);
  position_of_.assign(ranks_, 0);
  std::vector<bool> seen(ranks_, false);
  for (std::size_t h = 0; h < nodes_.size(); ++h) {
    if (nodes_[h].size() != g) throw InputError("CollNet needs the same number of GPUs on every node");
    for (std::size_t q = 0; q < g; ++q) {
      const std::uint32_t r = nodes_[h][q].value();
      if (r >= ranks_ || seen[r]) throw InputError(fmt::format("CollNet nodes must hold each rank once (rank {})", r));
      seen[r] = true;
      node_of_[r] = static_cast<std::uint32_t>(h);
      position_of_[r] = static_cast<std::uint32_t>(q);
    }
  }
  if (std::find(seen.begin(), seen.end(), false) != seen.end()) throw InputError("CollNet nodes miss a rank");
  const auto gpus = static_cast<std::uint32_t>(g);
  if (algorithm_ == Algorithm::collnet_chain) {
    chain_tree_ = channel * std::max<std::uint32_t>(1, gpus / std::max<std::uint32_t>(1, channels)) % gpus;
  }
  depth_ = trees_.front().root ? 2 : 1;
  leaf_participant_.resize(g);
  root_participant_.assign(g, 0);
  for (std::uint32_t t = 0; t < g; ++t) {
    const SharpTree& tree = trees_[t];
    if ((tree.root ? 2u : 1u) != depth_ || tree.heads.size() != nodes_.size() || tree.leaf_of.size() != nodes_.size()) {
      throw InputError("CollNet's SHARP trees must cover every node, all at one depth");
    }
    if (algorithm_ == Algorithm::collnet_chain && t != chain_tree_) continue;  // a chain uses its own rail only
    for (std::uint32_t l = 0; l < tree.leaves.size(); ++l) {
      leaf_participant_[t].push_back(static_cast<std::uint32_t>(ranks_ + switches_.size()));
      std::vector<Rank> heads;
      for (std::size_t h = 0; h < tree.heads.size(); ++h) {
        if (tree.leaf_of[h] == l) heads.push_back(tree.heads[h]);
      }
      switches_.push_back({t, l, tree.leaves[l], std::move(heads)});
    }
    if (tree.root) {
      root_participant_[t] = static_cast<std::uint32_t>(ranks_ + switches_.size());
      switches_.push_back({t, std::nullopt, *tree.root, {}});
    }
  }
  const std::uint32_t down_legs = 2 * depth_ - 1;  // steps from the leaves' receive to the heads'
  if (algorithm_ == Algorithm::collnet_direct) {
    up_ = gpus > 1 ? 1 : 0;                                            // after (A)
    step_count_ = slices_ + up_ + down_legs + 1 + (gpus > 1 ? 1 : 0);  // the last slice's (E)
  } else {
    up_ = gpus - 1;  // up the chain first
    step_count_ = slices_ + chain_recv_down(0) + 1;
  }
}

Participant CollNetPlan::participant(std::uint32_t index) const {
  if (index < ranks_) return {Rank{index}, std::nullopt};
  return {Rank{0}, switches_[index - ranks_].node};
}

double CollNetPlan::tree_bytes() const {
  return algorithm_ == Algorithm::collnet_direct ? slice_bytes() / static_cast<double>(nodes_.front().size())
                                                 : slice_bytes();
}

Rank CollNetPlan::leaf_participant(std::uint32_t tree, std::uint32_t leaf) const {
  return Rank{leaf_participant_[tree][leaf]};
}

Rank CollNetPlan::chain_member(std::uint32_t node, std::uint32_t index) const {
  const std::size_t g = nodes_.front().size();
  return nodes_[node][(chain_tree_ + 1 + index) % g];
}

std::uint32_t CollNetPlan::chain_recv_down(std::uint32_t index) const {
  const auto g = static_cast<std::uint32_t>(nodes_.front().size());
  const std::uint32_t head = up_ + 2 * depth_ - 1;  // the head's receive of the result
  return index + 1 == g ? head : head + (g - 1 - index);
}

void CollNetPlan::step(Rank who, std::uint32_t step, PlanStep& out) const {
  out.clear();
  if (who.value() >= ranks_) {
    switch_step(switches_[who.value() - ranks_], step, out);
  } else if (algorithm_ == Algorithm::collnet_direct) {
    direct_rank_step(who.value(), step, out);
  } else {
    chain_rank_step(who.value(), step, out);
  }
}

void CollNetPlan::direct_rank_step(std::uint32_t rank, std::uint32_t step, PlanStep& out) const {
  const std::vector<Rank>& node = nodes_[node_of_[rank]];
  const std::uint32_t p = position_of_[rank];
  const double shard = tree_bytes();
  const std::uint32_t down = up_ + 2 * depth_ - 1;
  const auto exchange = [&](std::uint32_t offset, bool reduce) {
    for (std::uint32_t q = 0; q < node.size(); ++q) {
      if (q == p) continue;
      out.sends.push_back({node[q], shard, step, step - offset});
      ++out.recv_count;
      if (reduce) out.reduce_bytes += shard;
    }
  };
  // (A) shard q of slice `step` to GPU q; the node's other GPUs' shards p arrive and are added.
  if (node.size() > 1 && slice_at(step, 0)) exchange(0, true);
  // (B) the node's shard p up the rail's SHARP tree.
  if (slice_at(step, up_)) {
    out.sends.push_back({leaf_participant(p, trees_[p].leaf_of[node_of_[rank]]), shard, step, step - up_});
  }
  // The reduced shard back from the leaf.
  if (slice_at(step, down)) ++out.recv_count;
  // (E) the reduced shard p to the node's other GPUs; theirs arrive.
  if (node.size() > 1 && slice_at(step, down + 1)) exchange(down + 1, false);
}

void CollNetPlan::chain_rank_step(std::uint32_t rank, std::uint32_t step, PlanStep& out) const {
  const std::uint32_t h = node_of_[rank];
  const auto g = static_cast<std::uint32_t>(nodes_.front().size());
  const std::uint32_t index = (position_of_[rank] + g - chain_tree_ - 1) % g;  // the head (chain_tree_) is g-1
  const double slice = slice_bytes();
  // Up the chain: receive the partial sum from index-1 one step before passing it on.
  if (index > 0 && slice_at(step, index - 1)) {
    ++out.recv_count;
    out.reduce_bytes += slice;
  }
  if (slice_at(step, index)) {
    const Rank next =
        index + 1 < g ? chain_member(h, index + 1) : leaf_participant(chain_tree_, trees_[chain_tree_].leaf_of[h]);
    out.sends.push_back({next, slice, step, step - index});
  }
  // Down: the result arrives, then goes on to index-1.
  const std::uint32_t down = chain_recv_down(index);
  if (slice_at(step, down)) ++out.recv_count;
  if (index > 0 && slice_at(step, down + 1))
    out.sends.push_back({chain_member(h, index - 1), slice, step, step - down - 1});
}

void CollNetPlan::switch_step(const TreeSwitch& sw, std::uint32_t step, PlanStep& out) const {
  const SharpTree& tree = trees_[sw.tree];
  const double bytes = tree_bytes();
  if (!sw.leaf) {
    // The root: the leaves' partial sums arrive, the total goes back to every leaf.
    if (slice_at(step, up_ + 1)) out.recv_count += static_cast<std::uint32_t>(tree.leaves.size());
    if (slice_at(step, up_ + 2)) {
      for (std::uint32_t l = 0; l < tree.leaves.size(); ++l) {
        out.sends.push_back({leaf_participant(sw.tree, l), bytes, step, step - up_ - 2});
      }
    }
    return;
  }
  const std::vector<Rank>& heads = sw.heads;
  if (slice_at(step, up_)) out.recv_count += static_cast<std::uint32_t>(heads.size());
  std::uint32_t down = up_ + 1;
  if (depth_ == 2) {
    if (slice_at(step, up_ + 1)) out.sends.push_back({Rank{root_participant_[sw.tree]}, bytes, step, step - up_ - 1});
    if (slice_at(step, up_ + 2)) ++out.recv_count;
    down = up_ + 3;
  }
  if (slice_at(step, down)) {
    for (const Rank head : heads) out.sends.push_back({head, bytes, step, step - down});
  }
}

std::uint32_t collnet_slices(Bytes per_channel) {
  return static_cast<std::uint32_t>(
      std::clamp<std::int64_t>(per_channel.value / kCollNetChunkBytes, 1, kMaxCollNetSlices));
}

namespace {

// The network switches on a route, in order.
std::vector<NodeId> route_switches(const Topology& topology, const Route& route) {
  std::vector<NodeId> switches;
  for (const LinkId id : route.links) {
    const NodeId dst = topology.link(id).dst;
    if (topology.node(dst).kind == NodeKind::network_switch) switches.push_back(dst);
  }
  return switches;
}

bool reduces(const Topology& topology, NodeId node) {
  return topology.node(node).reduction == SwitchReduction::on;
}

}  // namespace

std::vector<SharpTree> sharp_trees(Router& router, const std::vector<std::vector<Rank>>& nodes) {
  const Topology& topology = router.topology();
  if (nodes.size() < 2) return {};
  const std::size_t g = nodes.front().size();
  for (const auto& node : nodes) {
    if (node.size() != g) return {};
  }
  std::vector<SharpTree> trees(g);
  for (std::size_t q = 0; q < g; ++q) {
    SharpTree& tree = trees[q];
    for (std::size_t h = 0; h < nodes.size(); ++h) {
      const Rank head = nodes[h][q];
      const Rank peer = nodes[(h + 1) % nodes.size()][q];
      const std::vector<NodeId> on_way =
          route_switches(topology, router.route(topology.gpu(head.value()), topology.gpu(peer.value())));
      if (on_way.empty() || !reduces(topology, on_way.front())) return {};
      auto it = std::find(tree.leaves.begin(), tree.leaves.end(), on_way.front());
      if (it == tree.leaves.end()) it = tree.leaves.insert(tree.leaves.end(), on_way.front());
      tree.heads.push_back(head);
      tree.leaf_of.push_back(static_cast<std::uint32_t>(it - tree.leaves.begin()));
    }
    if (tree.leaves.size() > 1) {
      // Leaves of one level (a leaf-spine fabric, or one pod) meet in the switch halfway between two of them.
      const std::vector<NodeId> between = route_switches(topology, router.route(tree.leaves[0], tree.leaves[1]));
      if (between.size() < 2) return {};
      tree.root = between[(between.size() - 1) / 2];
      if (!reduces(topology, *tree.root)) return {};
    }
    if ((tree.root.has_value()) != (trees.front().root.has_value())) return {};
  }
  return trees;
}

}  // namespace syncsim
