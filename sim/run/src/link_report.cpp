#include "link_report.hpp"

#include <algorithm>
#include <string>

namespace syncsim::run {

std::vector<LinkReport> busiest_links(const Topology& topology, const FlowModel& flows, SimTime total) {
  struct Used {
    LinkId link;
    LinkUsage usage;
  };
  std::vector<Used> used;
  for (std::size_t i = 0; i < topology.link_count(); ++i) {
    const LinkId link{static_cast<std::uint32_t>(i)};
    const LinkUsage usage = flows.link_usage(link);
    if (usage.bytes_carried > 0) used.push_back({link, usage});
  }
  std::sort(used.begin(), used.end(), [](const Used& a, const Used& b) {
    if (a.usage.busy_time != b.usage.busy_time) return a.usage.busy_time > b.usage.busy_time;
    if (a.usage.bytes_carried != b.usage.bytes_carried) return a.usage.bytes_carried > b.usage.bytes_carried;
    return a.link.value() < b.link.value();
  });
  if (used.size() > kBusiestLinks) used.resize(kBusiestLinks);
  std::vector<LinkReport> out;
  for (const Used& u : used) {
    const Link& link = topology.link(u.link);
    LinkReport report;
    report.from = topology.node(link.src).name;
    report.to = topology.node(link.dst).name;
    report.link_class = std::string(to_string(link.kind));
    report.bytes = u.usage.bytes_carried;
    report.busy = u.usage.busy_time;
    report.utilization =
        total > SimTime::zero() ? static_cast<double>(u.usage.busy_time.ps()) / static_cast<double>(total.ps()) : 0.0;
    out.push_back(std::move(report));
  }
  return out;
}

}  // namespace syncsim::run
