#include "scenario_network.hpp"

#include <fmt/format.h>

#include "syncsim/core/sim_time_overflow.hpp"

namespace syncsim::run {

namespace {

// simulate_collective on a changed network; a clock overflow placed at the degradation active at `start`.
CollectiveOutcome degraded_collective(const Scenario& s, Router& changed, const CollectiveSpec& spec, SimTime start) {
  try {
    return simulate_collective(changed, spec);
  } catch (const SimTimeOverflow& e) {
    // The undegraded network's collectives are timed first (the nominal iteration), so one that passes the clock
    // only here does so because of a degradation active now.
    for (const LinkDegradation& d : s.degraded_links) {
      if (start < d.from || (d.until && start >= *d.until)) continue;
      throw InputError(
          fmt::format("{} (an AllReduce of {} over the degraded link)", e.message(), format_bytes(spec.size)), d.where,
          d.key + ".factor");
    }
    throw;
  }
}

}  // namespace

std::vector<LinkId> resolve_link(const Topology& topology, const LinkEnds& ends) {
  const std::optional<NodeId> a = find_node(topology, ends.a.value);
  if (!a) throw ends.a.error(fmt::format("the topology has no node '{}' (`syncsim topo` lists them)", ends.a.value));
  const std::optional<NodeId> b = find_node(topology, ends.b.value);
  if (!b) throw ends.b.error(fmt::format("the topology has no node '{}' (`syncsim topo` lists them)", ends.b.value));
  std::vector<LinkId> links = links_between(topology, *a, *b);
  if (links.empty()) throw ends.b.error(fmt::format("no link joins '{}' and '{}'", ends.a.value, ends.b.value));
  return links;
}

NetworkTimeline scenario_network_timeline(ResolvedScenario& context) {
  std::vector<LinkChange> changes;
  for (const LinkDegradation& d : context.scenario().degraded_links) {
    changes.push_back({resolve_link(context.topology(), d.between), d.factor, d.from, d.until});
  }
  auto intact = [&context](CollectiveOp op, Bytes size, std::size_t ranks) -> const CollectiveOutcome& {
    return context.collective(op, size, ranks);
  };
  auto changed = [&context](Router& router, CollectiveOp op, Bytes size, std::size_t ranks, SimTime start) {
    CollectiveSpec spec = context.collective_spec(op, ranks);
    spec.size = size;
    return context.changed_network_collective(router.topology(), spec, [&] {
      return at_value(context.scenario().training.algorithm,
                      [&] { return degraded_collective(context.scenario(), router, spec, start); });
    });
  };
  return NetworkTimeline(context.topology(), std::move(changes), std::move(intact), std::move(changed));
}

}  // namespace syncsim::run
