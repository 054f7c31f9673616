#include "syncsim/training/network_timeline.hpp"

#include <algorithm>
#include <tuple>

namespace syncsim {

struct NetworkTimeline::Variant {
  Topology topology;
  Router router;
  std::map<std::tuple<CollectiveOp, std::int64_t, std::int64_t>, CollectiveOutcome> collectives;  // (op, size, ranks)
  explicit Variant(Topology changed) : topology(std::move(changed)), router(topology) {}
};

NetworkTimeline::NetworkTimeline(const Topology& intact, std::vector<LinkChange> changes,
                                 IntactCollective intact_collective, ChangedCollective changed_collective)
    : intact_(&intact),
      changes_(std::move(changes)),
      intact_collective_(std::move(intact_collective)),
      changed_collective_(std::move(changed_collective)) {}

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

SimTime NetworkTimeline::collective(CollectiveOp op, Bytes size, std::int64_t ranks, SimTime start) {
  if (ranks <= 1) return SimTime::zero();
  return collective_outcome(op, size, ranks, start).outcome->time;
}

NetworkTimeline::Outcome NetworkTimeline::collective_outcome(CollectiveOp op, Bytes size, std::int64_t ranks,
                                                             SimTime start) {
  const auto n = static_cast<std::size_t>(std::max<std::int64_t>(ranks, 1));
  std::map<LinkId, double> state = state_at(start);
  if (state.empty()) return {&intact_collective_(op, size, n), intact_};
  auto found = variants_.find(state);
  if (found == variants_.end()) {
    Topology changed = with_link_factors(*intact_, state);
    found = variants_.emplace(std::move(state), std::make_unique<Variant>(std::move(changed))).first;
  }
  Variant& v = *found->second;
  const auto key = std::make_tuple(op, size.value, ranks);
  if (const auto hit = v.collectives.find(key); hit != v.collectives.end()) return {&hit->second, &v.topology};
  const auto placed = v.collectives.emplace(key, changed_collective_(v.router, op, size, n, start));
  return {&placed.first->second, &v.topology};
}

}  // namespace syncsim
