#pragma once
// The network switches of a topology by tier, as `syncsim topo` reports them: a switch's tier is its distance in
// switch hops from the nearest endpoint (a NIC, or a GPU wired to a switch): leaves are tier 1, spines 2, cores 3.
// Ports are physical links; a port is "down" when it leads to a lower tier (or an endpoint), "up" when to a higher
// one. A switch's oversubscription is the bandwidth it takes in from below over what it sends up; a tier's is its
// switches' largest.
#include <cstddef>
#include <string>
#include <vector>

#include "syncsim/topology/topology.hpp"

namespace syncsim {

struct SwitchTier {
  std::size_t tier = 0;  // 1 = leaf
  std::size_t switches = 0;
  std::size_t min_ports = 0;  // ports used (down + up + any between switches of the tier), over the tier's switches
  std::size_t max_ports = 0;
  std::size_t max_down = 0;
  std::size_t max_up = 0;
  double down_bytes_per_s = 0;  // summed over the tier
  double up_bytes_per_s = 0;
  double oversubscription = 0;  // 0 for a top tier (nothing up)
};

// In tier order; empty when the topology has no network switch.
std::vector<SwitchTier> switch_tiers(const Topology& topology);
// "leaf", "spine", "core", then "tier N".
std::string tier_name(std::size_t tier);
// One line per tier: "leaf 1,024 switches, 64 ports (32 down, 32 up), 1:1 oversubscribed".
std::string to_text(const std::vector<SwitchTier>& tiers);

}  // namespace syncsim
