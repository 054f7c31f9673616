#pragma once
// The scenario's network over time (`degraded_links:`) as the training layer's NetworkTimeline: link names
// resolved against the topology, the intact AllReduce from the ResolvedScenario's cache, and a changed network's
// AllReduce simulated as `syncsim collective` would, an overflow of the clock placed at the degradation.
#include <vector>

#include "resolved_scenario.hpp"
#include "syncsim/training/network_timeline.hpp"

namespace syncsim::run {

// The directed links between a scenario's two named nodes; InputError at the names' position when a node is
// unknown or no link joins them.
std::vector<LinkId> resolve_link(const Topology& topology, const LinkEnds& ends);

// Resolves the scenario's degraded_links against the context's topology (InputError at the names). The timeline
// refers to the context, which must outlive it.
NetworkTimeline scenario_network_timeline(ResolvedScenario& context);

}  // namespace syncsim::run
