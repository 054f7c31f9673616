#include "syncsim/training/link_failure.hpp"

#include <map>

#include "syncsim/topology/link_changes.hpp"

namespace syncsim {

std::vector<std::int64_t> cut_off_workers(const Topology& topology, const std::vector<LinkId>& links,
                                          std::int64_t workers) {
  std::map<LinkId, double> gone;
  for (const LinkId link : links) gone[link] = 0;
  const Topology rest = with_link_factors(topology, gone);
  // Label every node by the first worker that reaches it (links are duplex, so reaching is mutual).
  std::vector<std::int64_t> group(rest.node_count(), -1);
  for (std::int64_t r = 0; r < workers; ++r) {
    const NodeId seed = rest.gpu(static_cast<std::size_t>(r));
    if (group[seed.value()] >= 0) continue;
    std::vector<NodeId> stack{seed};
    group[seed.value()] = r;
    while (!stack.empty()) {
      const NodeId at = stack.back();
      stack.pop_back();
      for (const LinkId l : rest.out_links(at)) {
        const NodeId next = rest.link(l).dst;
        if (group[next.value()] < 0) {
          group[next.value()] = r;
          stack.push_back(next);
        }
      }
    }
  }
  std::map<std::int64_t, std::int64_t> size_of;  // group label -> workers in it
  for (std::int64_t r = 0; r < workers; ++r) ++size_of[group[rest.gpu(static_cast<std::size_t>(r)).value()]];
  std::int64_t kept = 0;
  for (const auto& [label, size] : size_of) {
    if (size > size_of[kept]) kept = label;  // labels ascend, so a tie keeps the lowest rank's group
  }
  std::vector<std::int64_t> cut;
  for (std::int64_t r = 0; r < workers; ++r) {
    if (group[rest.gpu(static_cast<std::size_t>(r)).value()] != kept) cut.push_back(r);
  }
  return cut;
}

}  // namespace syncsim
