#include "syncsim/topology/link_changes.hpp"

#include <fmt/format.h>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

std::optional<NodeId> find_node(const Topology& topology, std::string_view name) {
  for (std::uint32_t i = 0; i < topology.node_count(); ++i) {
    if (topology.node(NodeId{i}).name == name) return NodeId{i};
  }
  return std::nullopt;
}

std::vector<LinkId> links_between(const Topology& topology, NodeId a, NodeId b) {
  std::vector<LinkId> links;
  for (std::uint32_t l = 0; l < topology.link_count(); ++l) {
    const Link& link = topology.link(LinkId{l});
    if ((link.src == a && link.dst == b) || (link.src == b && link.dst == a)) links.push_back(LinkId{l});
  }
  return links;
}

Topology with_link_factors(const Topology& topology, const std::map<LinkId, double>& factors) {
  for (const auto& [link, factor] : factors) {
    if (link.value() >= topology.link_count()) {
      throw InputError(fmt::format("link id {} out of range ({} links)", link.value(), topology.link_count()));
    }
    if (!(factor >= 0 && factor <= 1)) {
      throw InputError(fmt::format("link bandwidth factor must be in [0, 1], got {}", factor));
    }
  }
  const auto factor_of = [&](LinkId link) {
    const auto found = factors.find(link);
    return found == factors.end() ? 1.0 : found->second;
  };
  Topology copy;
  for (std::uint32_t i = 0; i < topology.node_count(); ++i) copy.add_node(topology.node(NodeId{i}));
  // Links are re-added in id order so that ids stay the same when none is removed. A duplex pair whose two
  // directions keep the same bandwidth is re-added as one duplex link (as it was built); anything else goes in
  // one direction at a time, and add_simplex_link pairs the directions again.
  std::vector<char> added(topology.link_count(), 0);
  for (std::uint32_t l = 0; l < topology.link_count(); ++l) {
    if (added[l]) continue;
    const LinkId id{l};
    const Link& link = topology.link(id);
    const double factor = factor_of(id);
    if (factor == 0) continue;
    const Bandwidth bandwidth{link.bandwidth.bytes_per_second * factor};
    if (link.reverse.value() == l + 1 && factor_of(link.reverse) == factor) {
      const Link& back = topology.link(link.reverse);
      if (back.bandwidth == link.bandwidth && back.latency == link.latency && back.kind == link.kind) {
        copy.add_duplex_link(link.src, link.dst, bandwidth, link.latency, link.kind);
        added[l + 1] = 1;
        continue;
      }
    }
    copy.add_simplex_link(link.src, link.dst, bandwidth, link.latency, link.kind);
  }
  copy.set_description(topology.description());
  return copy;
}

}  // namespace syncsim
