#include "sync_link_load.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace syncsim::run {

namespace {

struct Load {
  double bytes = 0;
  SimTime busy;
};

}  // namespace

void record_link_loads(RunContext& context, SyncTraceRecorder& recorder, TrainingReport& report) {
  const Topology& topology = context.topology();
  std::map<LinkId, Load> loads;
  for (const SyncTraceRecorder::Collective& c : recorder.collectives()) {
    if (c.ranks < 2) continue;
    for (const LinkTraffic& t : context.allreduce(c.bytes, static_cast<std::size_t>(c.ranks)).links) {
      Load& load = loads[t.link];
      load.bytes += t.bytes_carried;
      load.busy += t.busy_time;
    }
  }
  std::vector<std::pair<LinkId, Load>> ranked(loads.begin(), loads.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    if (a.second.busy != b.second.busy) return a.second.busy > b.second.busy;
    if (a.second.bytes != b.second.bytes) return a.second.bytes > b.second.bytes;
    return a.first.value() < b.first.value();
  });
  if (ranked.size() > kBusiestLinks) ranked.resize(kBusiestLinks);

  report.busiest_links.clear();
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const auto& [id, load] = ranked[i];
    const Link& link = topology.link(id);
    LinkReport l;
    l.from = topology.node(link.src).name;
    l.to = topology.node(link.dst).name;
    l.link_class = std::string(to_string(link.kind));
    l.bytes = load.bytes;
    l.busy = load.busy;
    l.utilization = report.total > SimTime::zero()
                        ? static_cast<double>(load.busy.ps()) / static_cast<double>(report.total.ps())
                        : 0.0;
    report.busiest_links.push_back(l);

    const trace::TrackId track = recorder.builder().add_track(fmt::format("link {} -> {}", l.from, l.to),
                                                              trace::TrackKind::link, static_cast<std::int32_t>(i));
    for (const SyncTraceRecorder::Collective& c : recorder.collectives()) {
      if (c.ranks < 2 || !recorder.traced_iteration(c.iteration) || c.end <= c.start) continue;
      SimTime busy;
      for (const LinkTraffic& t : context.allreduce(c.bytes, static_cast<std::size_t>(c.ranks)).links) {
        if (t.link == id) busy = t.busy_time;
      }
      const double utilization =
          std::min(1.0, static_cast<double>(busy.ps()) / static_cast<double>((c.end - c.start).ps()));
      recorder.builder().add_counter(track, "utilization", c.start, std::round(utilization * 1e6) / 1e6);
      recorder.builder().add_counter(track, "utilization", c.end, 0.0);
    }
  }
}

}  // namespace syncsim::run
