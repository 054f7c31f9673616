#include "sync_link_load.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace syncsim::run {

namespace {

// A directed link by its end nodes' names and its class: the same physical link in every copy of the topology.
using LinkName = std::tuple<std::string, std::string, std::string>;

LinkName name_of(const Topology& topology, LinkId id) {
  const Link& link = topology.link(id);
  return {topology.node(link.src).name, topology.node(link.dst).name, std::string(to_string(link.kind))};
}

struct Load {
  double bytes = 0;
  SimTime busy;
  double utilization = 0;
};

// The bytes `link` carried in one collective, 0 when none.
double bytes_in(const NetworkTimeline::Outcome& o, const LinkName& link) {
  for (const LinkTraffic& t : o.outcome->links) {
    if (name_of(*o.topology, t.link) == link) return t.bytes_carried;
  }
  return 0;
}

// The link's bandwidth in the topology the collective ran on (0 when it is gone there).
double bandwidth_in(const Topology& topology, const LinkName& link) {
  for (std::size_t i = 0; i < topology.link_count(); ++i) {
    const LinkId id{static_cast<std::uint32_t>(i)};
    if (name_of(topology, id) == link) return topology.link(id).bandwidth.bytes_per_second;
  }
  return 0;
}

}  // namespace

void record_link_loads(ResolvedScenario& context, NetworkTimeline& network, SyncTraceRecorder& recorder,
                       TrainingReport& report) {
  std::map<LinkName, Load> loads;
  for (const SyncTraceRecorder::Collective& c : recorder.collectives()) {
    if (c.ranks < 2) continue;
    const NetworkTimeline::Outcome o = network.collective_outcome(c.op, c.bytes, c.ranks, c.start);
    for (const LinkTraffic& t : o.outcome->links) {
      Load& load = loads[name_of(*o.topology, t.link)];
      load.bytes += t.bytes_carried;
      load.busy += t.busy_time;
    }
  }
  const Topology& intact = context.topology();
  for (std::size_t i = 0; i < intact.link_count() && report.total > SimTime::zero(); ++i) {
    const LinkId id{static_cast<std::uint32_t>(i)};
    const auto found = loads.find(name_of(intact, id));
    if (found == loads.end()) continue;
    const double capacity =
        intact.link(id).bandwidth.bytes_per_second * network.mean_factor(id, report.total) * report.total.seconds();
    found->second.utilization = capacity > 0 ? std::min(1.0, found->second.bytes / capacity) : 1.0;
  }
  std::vector<std::pair<LinkName, Load>> ranked(loads.begin(), loads.end());
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    if (a.second.utilization != b.second.utilization) return a.second.utilization > b.second.utilization;
    if (a.second.busy != b.second.busy) return a.second.busy > b.second.busy;
    return a.second.bytes > b.second.bytes;
  });
  if (ranked.size() > kBusiestLinks) ranked.resize(kBusiestLinks);

  report.busiest_links.clear();
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const auto& [name, load] = ranked[i];
    LinkReport l;
    std::tie(l.from, l.to, l.link_class) = name;
    l.bytes = load.bytes;
    l.busy = load.busy;
    l.utilization = load.utilization;
    report.busiest_links.push_back(l);

    const trace::TrackId track = recorder.builder().add_track(fmt::format("link {} -> {}", l.from, l.to),
                                                              trace::TrackKind::link, static_cast<std::int32_t>(i));
    for (const SyncTraceRecorder::Collective& c : recorder.collectives()) {
      if (c.ranks < 2 || !recorder.traced_iteration(c.iteration) || c.end <= c.start) continue;
      const NetworkTimeline::Outcome o = network.collective_outcome(c.op, c.bytes, c.ranks, c.start);
      const double capacity = bandwidth_in(*o.topology, name) * (c.end - c.start).seconds();
      const double utilization = capacity > 0 ? std::min(1.0, bytes_in(o, name) / capacity) : 0.0;
      recorder.builder().add_counter(track, "utilization", c.start, std::round(utilization * 1e6) / 1e6);
      recorder.builder().add_counter(track, "utilization", c.end, 0.0);
    }
  }
}

}  // namespace syncsim::run
