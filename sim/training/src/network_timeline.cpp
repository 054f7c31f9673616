#include "syncsim/training/network_timeline.hpp"

#include <algorithm>

namespace syncsim {

struct NetworkTimeline::Variant {
  Topology topology;
  Router router;
  std::map<std::pair<std::int64_t, std::int64_t>, CollectiveOutcome> allreduce;  // (size, ranks) -> outcome
  explicit Variant(Topology changed) : topology(std::move(changed)), router(topology) {}
};

NetworkTimeline::NetworkTimeline(const Topology& intact, std::vector<LinkChange> changes,
                                 IntactAllReduce intact_allreduce, ChangedAllReduce changed_allreduce)
    : intact_(&intact),
      changes_(std::move(changes)),
      intact_allreduce_(std::move(intact_allreduce)),
      changed_allreduce_(std::move(changed_allreduce)) {}

NetworkTimeline::~NetworkTimeline() = default;

void NetworkTimeline::fail_links(const std::vector<LinkId>& links, SimTime from) {
  changes_.push_back({links, 0.0, from, std::nullopt});
}

std::map<LinkId, double> NetworkTimeline::state_at(SimTime time) const {
  std::map<LinkId, double> factors;
  for (const LinkChange& c : changes_) {
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
  for (const LinkChange& c : changes_) {
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
  if (state.empty()) return {&intact_allreduce_(size, n), intact_};
  auto found = variants_.find(state);
  if (found == variants_.end()) {
    Topology changed = with_link_factors(*intact_, state);
    found = variants_.emplace(std::move(state), std::make_unique<Variant>(std::move(changed))).first;
  }
  Variant& v = *found->second;
  const auto key = std::make_pair(size.value, ranks);
  if (const auto hit = v.allreduce.find(key); hit != v.allreduce.end()) return {&hit->second, &v.topology};
  const auto placed = v.allreduce.emplace(key, changed_allreduce_(v.router, size, n, start));
  return {&placed.first->second, &v.topology};
}

}  // namespace syncsim
