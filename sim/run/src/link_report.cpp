#include "link_report.hpp"

#include <algorithm>
#include <string>

namespace syncsim::run {

std::vector<LinkReport> busiest_links(const Topology& topology, const std::vector<LinkUsage>& usage_of, SimTime total) {
  struct Used {
    LinkId link;
    LinkUsage usage;
  };
  std::vector<Used> used;
  for (std::size_t i = 0; i < topology.link_count(); ++i) {
    const LinkId link{static_cast<std::uint32_t>(i)};
    const LinkUsage& usage = usage_of.at(i);
    if (usage.bytes_carried > 0) used.push_back({link, usage});
  }
  // Utilization: what the link carried over what it could have carried in the run.
  const auto utilization = [&](const Used& u) {
    const double capacity = topology.link(u.link).bandwidth.bytes_per_second * total.seconds();
    return capacity > 0 ? std::min(1.0, u.usage.bytes_carried / capacity) : 0.0;
  };
  // A total order (the link id breaks ties): the first few, sorted, are those a full sort would put first.
  const auto kept = used.begin() + static_cast<std::ptrdiff_t>(std::min(used.size(), kBusiestLinks));
  std::partial_sort(used.begin(), kept, used.end(), [&](const Used& a, const Used& b) {
    if (utilization(a) != utilization(b)) return utilization(a) > utilization(b);
    if (a.usage.busy_time != b.usage.busy_time) return a.usage.busy_time > b.usage.busy_time;
    return a.link.value() < b.link.value();
  });
  used.erase(kept, used.end());
  std::vector<LinkReport> out;
  for (const Used& u : used) {
    const Link& link = topology.link(u.link);
    LinkReport report;
    report.from = topology.node(link.src).name;
    report.to = topology.node(link.dst).name;
    report.link_class = std::string(to_string(link.kind));
    report.bytes = u.usage.bytes_carried;
    report.busy = u.usage.busy_time;
    report.utilization = utilization(u);
    out.push_back(std::move(report));
  }
  return out;
}

}  // namespace syncsim::run
