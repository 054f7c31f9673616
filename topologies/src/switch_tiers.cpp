#include "syncsim/topology/switch_tiers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

namespace syncsim {

namespace {

constexpr std::size_t kNoTier = std::numeric_limits<std::size_t>::max();

bool is_switch(const Topology& topology, NodeId v) {
  return topology.node(v).kind == NodeKind::network_switch;
}

// Tier of every node: 0 for an endpoint on a switch, 1 + the nearest lower tier for a switch (a breadth-first search
// from all endpoints at once, through switches only); kNoTier elsewhere.
std::vector<std::size_t> tiers_of(const Topology& topology) {
  std::vector<std::size_t> tier(topology.node_count(), kNoTier);
  std::vector<NodeId> frontier;
  for (std::uint32_t v = 0; v < topology.node_count(); ++v) {
    if (is_switch(topology, NodeId{v})) continue;
    for (const LinkId l : topology.out_links(NodeId{v})) {
      if (is_switch(topology, topology.link(l).dst)) {
        tier[v] = 0;
        frontier.push_back(NodeId{v});
        break;
      }
    }
  }
  for (std::size_t level = 1; !frontier.empty(); ++level) {
    std::vector<NodeId> next;
    for (const NodeId v : frontier) {
      for (const LinkId l : topology.out_links(v)) {
        const NodeId to = topology.link(l).dst;
        if (!is_switch(topology, to) || tier[to.value()] != kNoTier) continue;
        tier[to.value()] = level;
        next.push_back(to);
      }
    }
    frontier = std::move(next);
  }
  return tier;
}

// 12500 -> "12,500".
std::string thousands(std::size_t n) {
  std::string reversed;
  for (int digit = 0; digit == 0 || n > 0; ++digit, n /= 10) {
    if (digit > 0 && digit % 3 == 0) reversed.push_back(',');
    reversed.push_back(static_cast<char>('0' + n % 10));
  }
  return {reversed.rbegin(), reversed.rend()};
}

std::string ratio(double r) {
  if (r <= 0) return "";
  return std::abs(r - std::round(r)) < 1e-9 ? fmt::format(", {:.0f}:1 oversubscribed", r)
                                            : fmt::format(", {:.2f}:1 oversubscribed", r);
}

}  // namespace

std::vector<SwitchTier> switch_tiers(const Topology& topology) {
  const std::vector<std::size_t> tier = tiers_of(topology);
  std::vector<SwitchTier> tiers;
  for (std::uint32_t v = 0; v < topology.node_count(); ++v) {
    if (!is_switch(topology, NodeId{v}) || tier[v] == kNoTier) continue;
    if (tiers.size() < tier[v]) tiers.resize(tier[v]);
    SwitchTier& t = tiers[tier[v] - 1];
    std::size_t down = 0;
    std::size_t up = 0;
    double down_bw = 0;
    double up_bw = 0;
    const std::span<const LinkId> links = topology.out_links(NodeId{v});
    for (const LinkId l : links) {
      const Link& link = topology.link(l);
      const std::size_t there = tier[link.dst.value()];
      if (there == kNoTier) continue;
      if (there < tier[v]) {
        ++down;
        down_bw += link.bandwidth.bytes_per_second;
      } else if (there > tier[v]) {
        ++up;
        up_bw += link.bandwidth.bytes_per_second;
      }
    }
    if (up_bw > 0) t.oversubscription = std::max(t.oversubscription, down_bw / up_bw);
    t.down_bytes_per_s += down_bw;
    t.up_bytes_per_s += up_bw;
    t.tier = tier[v];
    t.min_ports = t.switches == 0 ? links.size() : std::min(t.min_ports, links.size());
    t.max_ports = std::max(t.max_ports, links.size());
    t.max_down = std::max(t.max_down, down);
    t.max_up = std::max(t.max_up, up);
    ++t.switches;
  }
  return tiers;
}

std::string tier_name(std::size_t tier) {
  switch (tier) {
    case 1:
      return "leaf";
    case 2:
      return "spine";
    case 3:
      return "core";
    default:
      return fmt::format("tier {}", tier);
  }
}

std::string to_text(const std::vector<SwitchTier>& tiers) {
  std::string out;
  for (const SwitchTier& t : tiers) {
    const std::string ports =
        t.min_ports == t.max_ports ? fmt::format("{}", t.max_ports) : fmt::format("{}-{}", t.min_ports, t.max_ports);
    const std::string split =
        t.max_up == 0 ? fmt::format("{} down", t.max_down) : fmt::format("{} down, {} up", t.max_down, t.max_up);
    out += fmt::format("{:<9} {} {} switch{}, {} ports used ({} at most){}\n", out.empty() ? "tiers" : "",
                       tier_name(t.tier), thousands(t.switches), t.switches == 1 ? "" : "es", ports, split,
                       ratio(t.oversubscription));
  }
  return out;
}

}  // namespace syncsim
