// How NCCL lays a collective over the machine: its nodes (hosts, or NVLink domains fused into one), one channel per
// rail, and each channel's ring order over the nodes (collective_runner.hpp says why each is so).
#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "first_gpus.hpp"
#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/collectives/nvls_plan.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

// NCCL 2.30: the ring search looks for at most MAXCHANNELS / 2 = 32 channels, the tree's for at most the ring's
// (src/init.cc).
constexpr std::uint32_t kMaxSearchedChannels = 32;

}  // namespace

std::vector<std::vector<Rank>> host_groups(const Topology& topology, std::size_t ranks) {
  return host_groups(topology, first_gpus(ranks));
}

std::vector<std::vector<Rank>> host_groups(const Topology& topology, const std::vector<std::size_t>& gpus) {
  std::map<int, std::vector<Rank>> by_host;
  for (std::size_t r = 0; r < gpus.size(); ++r) {
    const auto host = topology.node(topology.gpu(gpus[r])).host;
    if (!host) return {};
    by_host[*host].push_back(Rank{static_cast<std::uint32_t>(r)});
  }
  std::vector<std::vector<Rank>> groups;
  for (auto& [host, members] : by_host) groups.push_back(std::move(members));
  return groups;
}

std::vector<std::vector<Rank>> nccl_node_groups(const Topology& topology, std::size_t ranks) {
  return nccl_node_groups(topology, first_gpus(ranks));
}

std::vector<std::vector<Rank>> nccl_node_groups(const Topology& topology, const std::vector<std::size_t>& gpus) {
  std::vector<std::vector<Rank>> nodes;
  std::vector<std::optional<NodeId>> switch_of_node;
  for (std::vector<Rank>& host : host_groups(topology, gpus)) {
    const std::optional<NodeId> nvswitch = nvlink_switch_of(topology, topology.gpu(gpus[host.front().value()]));
    const bool one_switch = std::all_of(host.begin(), host.end(), [&](Rank r) {
      return nvlink_switch_of(topology, topology.gpu(gpus[r.value()])) == nvswitch;
    });
    auto same = nvswitch && one_switch ? std::find(switch_of_node.begin(), switch_of_node.end(), nvswitch)
                                       : switch_of_node.end();
    if (same == switch_of_node.end()) {
      nodes.push_back(std::move(host));
      switch_of_node.push_back(one_switch ? nvswitch : std::nullopt);
    } else {
      auto& node = nodes[static_cast<std::size_t>(same - switch_of_node.begin())];
      node.insert(node.end(), host.begin(), host.end());
    }
  }
  return nodes;
}

std::uint32_t default_channels(const Topology& topology, std::size_t ranks, Algorithm algorithm) {
  return default_channels(topology, first_gpus(ranks), algorithm);
}

std::uint32_t default_channels(const Topology& topology, const std::vector<std::size_t>& gpus, Algorithm algorithm) {
  const auto nodes = nccl_node_groups(topology, gpus);
  std::uint32_t channels = 1;
  if (nodes.size() > 1) {
    // NICs of the first node's hosts: one channel per rail.
    std::set<int> hosts;
    for (const Rank r : nodes.front()) hosts.insert(topology.node(topology.gpu(gpus[r.value()])).host.value_or(-1));
    std::uint32_t nics = 0;
    for (std::size_t v = 0; v < topology.node_count(); ++v) {
      const Node& node = topology.node(NodeId{static_cast<std::uint32_t>(v)});
      if (node.kind == NodeKind::nic && node.host && hosts.count(*node.host) > 0) ++nics;
    }
    channels = std::max<std::uint32_t>(1, nics);
  }
  // NCCL's tree search starts a chain at each NIC and ncclTopoPostset duplicates every chain for the second tree
  // (src/graph/connect.cc): a channel pair per rail, or one pair without host structure.
  if (algorithm == Algorithm::tree) channels = 2 * channels;
  // A rack-wide NVLink domain has a NIC per GPU, more than NCCL's searches look for.
  return std::min(channels, kMaxSearchedChannels);
}

std::vector<Rank> channel_ring_order(const std::vector<std::vector<Rank>>& hosts, std::size_t ranks,
                                     std::uint32_t channel, std::uint32_t channels) {
  std::vector<Rank> order;
  if (hosts.size() < 2) return order;  // rank order
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    const auto& members = hosts[h];
    const std::size_t g = members.size();
    // Entry points spread evenly over the host's GPUs, so that with fewer channels than GPUs (and GPUs sharing
    // NICs) the channels still leave through different NICs.
    const std::size_t entry = channel * std::max<std::size_t>(1, g / std::max<std::uint32_t>(1, channels));
    const std::size_t start = (h % 2 == 0 ? entry : entry + g - 1) % g;
    for (std::size_t i = 0; i < g; ++i) {
      const std::size_t local = h % 2 == 0 ? (start + i) % g : (start + g - i) % g;
      order.push_back(members[local]);
    }
  }
  SYNCSIM_INVARIANT(order.size() == ranks, "channel ring order lost a rank");
  return order;
}

Bytes channel_bytes(Bytes size, std::uint32_t channel, std::uint32_t channels) {
  const std::int64_t remainder = size.value % channels;
  return Bytes{size.value / channels + (channel + 1) * remainder / channels - channel * remainder / channels};
}

}  // namespace syncsim
