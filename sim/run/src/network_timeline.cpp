#include "network_timeline.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "syncsim/core/sim_time_overflow.hpp"
#include "syncsim/topology/router.hpp"

namespace syncsim::run {

struct NetworkTimeline::Variant {
  Topology topology;
  Router router;
  std::map<std::pair<std::int64_t, std::int64_t>, CollectiveOutcome> allreduce;  // (size, ranks) -> outcome
  explicit Variant(Topology changed) : topology(std::move(changed)), router(topology) {}
};

std::vector<LinkId> resolve_link(const Topology& topology, const LinkEnds& ends) {
  const std::optional<NodeId> a = find_node(topology, ends.a.value);
  if (!a) throw ends.a.error(fmt::format("the topology has no node '{}' (`syncsim topo` lists them)", ends.a.value));
  const std::optional<NodeId> b = find_node(topology, ends.b.value);
  if (!b) throw ends.b.error(fmt::format("the topology has no node '{}' (`syncsim topo` lists them)", ends.b.value));
  std::vector<LinkId> links = links_between(topology, *a, *b);
  if (links.empty()) throw ends.b.error(fmt::format("no link joins '{}' and '{}'", ends.a.value, ends.b.value));
  return links;
}

NetworkTimeline::NetworkTimeline(ResolvedScenario& context) : context_(&context) {
  for (const LinkDegradation& d : context.scenario().degraded_links) {
    changes_.push_back({resolve_link(context.topology(), d.between), d.factor, d.from, d.until});
  }
}

NetworkTimeline::~NetworkTimeline() = default;

void NetworkTimeline::fail_links(const std::vector<LinkId>& links, SimTime from) {
  changes_.push_back({links, 0.0, from, std::nullopt});
}

std::map<LinkId, double> NetworkTimeline::state_at(SimTime time) const {
  std::map<LinkId, double> factors;
  for (const Change& c : changes_) {
    if (time < c.from || (c.until && time >= *c.until)) continue;
    // Overlapping degradations of one link compound; a failed link stays at 0.
    for (const LinkId link : c.links) {
      const auto [it, fresh] = factors.emplace(link, c.factor);
      if (!fresh) it->second *= c.factor;
    }
  }
  std::erase_if(factors, [](const auto& entry) { return entry.second == 1.0; });
  return factors;
}

double NetworkTimeline::mean_factor(LinkId link, SimTime total) const {
  if (total <= SimTime::zero()) return 1.0;
  double lost = 0;  // seconds of full bandwidth missing
  for (const Change& c : changes_) {
    if (std::find(c.links.begin(), c.links.end(), link) == c.links.end()) continue;
    const SimTime from = std::min(c.from, total);
    const SimTime until = std::min(c.until.value_or(total), total);
    if (until > from) lost += (1.0 - c.factor) * (until - from).seconds();
  }
  return std::max(0.0, 1.0 - lost / total.seconds());
}

SimTime NetworkTimeline::allreduce(Bytes size, std::int64_t ranks, SimTime start) {
  if (ranks <= 1) return SimTime::zero();
  return allreduce_outcome(size, ranks, start).outcome->time;
}

NetworkTimeline::Outcome NetworkTimeline::allreduce_outcome(Bytes size, std::int64_t ranks, SimTime start) {
  const auto n = static_cast<std::size_t>(std::max<std::int64_t>(ranks, 1));
  std::map<LinkId, double> state = state_at(start);
  if (state.empty()) return {&context_->allreduce(size, n), &context_->topology()};
  auto found = variants_.find(state);
  if (found == variants_.end()) {
    Topology changed = with_link_factors(context_->topology(), state);
    found = variants_.emplace(std::move(state), std::make_unique<Variant>(std::move(changed))).first;
  }
  Variant& v = *found->second;
  const auto key = std::make_pair(size.value, ranks);
  if (const auto hit = v.allreduce.find(key); hit != v.allreduce.end()) return {&hit->second, &v.topology};
  CollectiveSpec spec = context_->collective_spec(CollectiveOp::allreduce, n);
  spec.size = size;
  const auto placed = v.allreduce.emplace(
      key, at_value(context_->scenario().training.algorithm, [&] { return degraded_collective(v, spec, start); }));
  return {&placed.first->second, &v.topology};
}

CollectiveOutcome NetworkTimeline::degraded_collective(Variant& variant, const CollectiveSpec& spec, SimTime start) {
  try {
    return simulate_collective(variant.router, spec);
  } catch (const SimTimeOverflow& e) {
    // The undegraded network's collectives are timed first (the nominal iteration), so one that passes the clock
    // only here does so because of a degradation active now.
    for (const LinkDegradation& d : context_->scenario().degraded_links) {
      if (start < d.from || (d.until && start >= *d.until)) continue;
      throw InputError(
          fmt::format("{} (an AllReduce of {} over the degraded link)", e.message(), format_bytes(spec.size)), d.where,
          d.key + ".factor");
    }
    throw;
  }
}

}  // namespace syncsim::run
