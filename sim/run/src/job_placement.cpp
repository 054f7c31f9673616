// Placement of several jobs on one cluster: the policies of job_placement.hpp.
#include "job_placement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <numeric>
#include <optional>

#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/core/rng.hpp"

namespace syncsim::run {

namespace {

// The first network switch `gpu` reaches directly or through a NIC; nullopt where there is none.
std::optional<NodeId> leaf_of(const Topology& topology, NodeId gpu) {
  for (const LinkId out : topology.out_links(gpu)) {
    const NodeId next = topology.link(out).dst;
    if (topology.node(next).kind == NodeKind::network_switch) return next;
  }
  for (const LinkId out : topology.out_links(gpu)) {
    const NodeId nic = topology.link(out).dst;
    if (topology.node(nic).kind != NodeKind::nic) continue;
    for (const LinkId up : topology.out_links(nic)) {
      const NodeId next = topology.link(up).dst;
      if (topology.node(next).kind == NodeKind::network_switch) return next;
    }
  }
  return std::nullopt;
}

// What the placement of each job is made of: the cluster's nodes, which are free, and the job being placed.
class NodePicker {
 public:
  NodePicker(const ClusterNodes& nodes, const JobConfig& job) : nodes_(nodes), job_(job) {}
  bool satisfied() const { return held_ >= job_.gpus.value; }
  void take(std::size_t node, std::vector<bool>& used) {
    used[node] = true;
    picked_.push_back(static_cast<std::int64_t>(node));
    held_ += static_cast<std::int64_t>(nodes_.gpus[node].size());
  }
  [[noreturn]] void fail(std::string_view policy, std::int64_t free_gpus) const {
    throw job_.gpus.error(
        fmt::format("job '{}' does not fit: it needs {} GPUs on whole nodes and placement {} "
                    "leaves it {} on free nodes",
                    job_.name.value, job_.gpus.value, policy, free_gpus));
  }
  std::vector<std::int64_t> nodes() const { return picked_; }

 private:
  const ClusterNodes& nodes_;
  const JobConfig& job_;
  std::vector<std::int64_t> picked_;
  std::int64_t held_ = 0;
};

std::int64_t free_gpus(const ClusterNodes& nodes, const std::vector<bool>& used) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < used.size(); ++i) n += used[i] ? 0 : static_cast<std::int64_t>(nodes.gpus[i].size());
  return n;
}

// packed and random: each job takes the next free nodes of `order`.
std::vector<std::vector<std::int64_t>> in_order(const ClusterNodes& nodes, const JobsConfig& jobs,
                                                const std::vector<std::size_t>& order, std::string_view policy) {
  std::vector<bool> used(nodes.gpus.size(), false);
  std::vector<std::vector<std::int64_t>> out;
  std::size_t next = 0;
  for (const JobConfig& job : jobs.jobs) {
    NodePicker picker(nodes, job);
    while (!picker.satisfied()) {
      if (next == order.size()) picker.fail(policy, free_gpus(nodes, used));
      picker.take(order[next++], used);
    }
    out.push_back(picker.nodes());
  }
  return out;
}

std::vector<std::deque<std::size_t>> free_by_leaf(const ClusterNodes& nodes) {
  std::vector<std::deque<std::size_t>> leaves(nodes.leaf_count);
  for (std::size_t n = 0; n < nodes.gpus.size(); ++n) leaves[nodes.leaf[n]].push_back(n);
  return leaves;
}

std::vector<std::vector<std::int64_t>> spread(const ClusterNodes& nodes, const JobsConfig& jobs) {
  std::vector<std::deque<std::size_t>> leaves = free_by_leaf(nodes);
  std::vector<bool> used(nodes.gpus.size(), false);
  std::vector<std::vector<std::int64_t>> out;
  std::size_t cursor = 0;
  for (const JobConfig& job : jobs.jobs) {
    NodePicker picker(nodes, job);
    while (!picker.satisfied()) {
      std::size_t tried = 0;
      while (tried < leaves.size() && leaves[cursor].empty()) cursor = (cursor + 1) % leaves.size(), ++tried;
      if (tried == leaves.size()) picker.fail("spread", 0);
      picker.take(leaves[cursor].front(), used);
      leaves[cursor].pop_front();
      cursor = (cursor + 1) % leaves.size();
    }
    out.push_back(picker.nodes());
  }
  return out;
}

std::int64_t leaf_gpus(const ClusterNodes& nodes, const std::deque<std::size_t>& leaf) {
  std::int64_t n = 0;
  for (const std::size_t node : leaf) n += static_cast<std::int64_t>(nodes.gpus[node].size());
  return n;
}

std::vector<std::int64_t> rail_place(const ClusterNodes& nodes, const JobConfig& job,
                                     std::vector<std::deque<std::size_t>>& leaves, std::vector<bool>& used) {
  NodePicker picker(nodes, job);
  std::optional<std::size_t> best;  // the fullest leaf that still holds the job whole
  for (std::size_t l = 0; l < leaves.size(); ++l) {
    const std::int64_t room = leaf_gpus(nodes, leaves[l]);
    if (room >= job.gpus.value && (!best || room < leaf_gpus(nodes, leaves[*best]))) best = l;
  }
  std::vector<std::size_t> order;
  if (best) {
    order.push_back(*best);
  } else {
    order.resize(leaves.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return leaf_gpus(nodes, leaves[a]) > leaf_gpus(nodes, leaves[b]);
    });
  }
  for (const std::size_t l : order) {
    while (!picker.satisfied() && !leaves[l].empty()) {
      picker.take(leaves[l].front(), used);
      leaves[l].pop_front();
    }
  }
  if (!picker.satisfied()) picker.fail("rail", free_gpus(nodes, used));
  return picker.nodes();
}

std::vector<std::vector<std::int64_t>> rail(const ClusterNodes& nodes, const JobsConfig& jobs) {
  std::vector<std::deque<std::size_t>> leaves = free_by_leaf(nodes);
  std::vector<bool> used(nodes.gpus.size(), false);
  std::vector<std::size_t> by_size(jobs.jobs.size());
  std::iota(by_size.begin(), by_size.end(), std::size_t{0});
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&](std::size_t a, std::size_t b) { return jobs.jobs[a].gpus.value > jobs.jobs[b].gpus.value; });
  std::vector<std::vector<std::int64_t>> out(jobs.jobs.size());
  for (const std::size_t j : by_size) out[j] = rail_place(nodes, jobs.jobs[j], leaves, used);
  return out;
}

std::vector<std::vector<std::int64_t>> explicit_lists(const ClusterNodes& nodes, const JobsConfig& jobs) {
  std::map<std::int64_t, std::string> owner;
  std::vector<std::vector<std::int64_t>> out;
  for (const JobConfig& job : jobs.jobs) {
    const auto list = std::find_if(jobs.placement.explicit_nodes.begin(), jobs.placement.explicit_nodes.end(),
                                   [&](const JobNodes& n) { return n.job.value == job.name.value; });
    std::vector<std::int64_t> picked;
    std::int64_t held = 0;
    for (const Located<std::int64_t>& node : list->nodes) {
      if (node.value >= static_cast<std::int64_t>(nodes.gpus.size())) {
        throw node.error(
            fmt::format("node {} does not exist: the cluster has nodes 0..{}", node.value, nodes.gpus.size() - 1));
      }
      if (const auto [at, fresh] = owner.emplace(node.value, job.name.value); !fresh) {
        throw node.error(fmt::format("node {} is given twice (also to job '{}')", node.value, at->second));
      }
      if (held >= job.gpus.value) {
        throw node.error(fmt::format("job '{}' needs {} GPUs: the nodes before node {} already hold them",
                                     job.name.value, job.gpus.value, node.value));
      }
      held += static_cast<std::int64_t>(nodes.gpus[static_cast<std::size_t>(node.value)].size());
      picked.push_back(node.value);
    }
    if (held < job.gpus.value) {
      throw list->job.error(
          fmt::format("job '{}' needs {} GPUs and its nodes hold {}", job.name.value, job.gpus.value, held));
    }
    out.push_back(std::move(picked));
  }
  return out;
}

std::vector<std::vector<std::int64_t>> pick_nodes(const JobsScenario& scenario, const ClusterNodes& nodes) {
  const JobsConfig& jobs = scenario.config;
  std::vector<std::size_t> order(nodes.gpus.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  switch (jobs.placement.policy.value) {
    case PlacementPolicy::packed:
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return nodes.leaf[a] < nodes.leaf[b]; });
      return in_order(nodes, jobs, order, "packed");
    case PlacementPolicy::random: {
      Rng rng(scenario.base.seed);
      for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
      return in_order(nodes, jobs, order, "random");
    }
    case PlacementPolicy::spread:
      return spread(nodes, jobs);
    case PlacementPolicy::rail:
      return rail(nodes, jobs);
    case PlacementPolicy::explicit_nodes:
      return explicit_lists(nodes, jobs);
  }
  return {};
}

}  // namespace

ClusterNodes cluster_nodes(const Topology& topology) {
  ClusterNodes out;
  const std::vector<std::vector<Rank>> hosts = host_groups(topology, topology.gpu_count());
  if (hosts.empty()) {
    for (std::size_t g = 0; g < topology.gpu_count(); ++g) out.gpus.push_back({g});
  } else {
    for (const std::vector<Rank>& host : hosts) {
      std::vector<std::size_t> gpus;
      for (const Rank r : host) gpus.push_back(r.value());
      out.gpus.push_back(std::move(gpus));
    }
  }
  std::map<std::size_t, std::size_t> dense;  // a leaf's node id -> its index
  for (const std::vector<std::size_t>& node : out.gpus) {
    const std::optional<NodeId> leaf = leaf_of(topology, topology.gpu(node.front()));
    const std::size_t key = leaf ? leaf->value() : std::size_t{0};
    const auto [at, fresh] = dense.emplace(key, dense.size());
    out.leaf.push_back(at->second);
  }
  out.leaf_count = dense.size();
  return out;
}

std::vector<JobPlacement> place_jobs(const JobsScenario& scenario, const Topology& topology) {
  const ClusterNodes nodes = cluster_nodes(topology);
  std::vector<std::vector<std::int64_t>> picked = pick_nodes(scenario, nodes);
  std::vector<JobPlacement> out;
  for (std::size_t j = 0; j < picked.size(); ++j) {
    JobPlacement placement;
    placement.nodes = std::move(picked[j]);
    std::sort(placement.nodes.begin(), placement.nodes.end());
    const auto want = static_cast<std::size_t>(scenario.config.jobs[j].gpus.value);
    for (const std::int64_t node : placement.nodes) {
      for (const std::size_t gpu : nodes.gpus[static_cast<std::size_t>(node)]) {
        if (placement.gpus.size() < want) placement.gpus.push_back(gpu);
      }
    }
    out.push_back(std::move(placement));
  }
  return out;
}

}  // namespace syncsim::run
