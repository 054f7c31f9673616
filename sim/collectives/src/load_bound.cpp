#include "load_bound.hpp"

#include <algorithm>

#include "plan_routes.hpp"
#include "syncsim/collectives/transfer_cost.hpp"

namespace syncsim {

namespace {
// The flow model rounds each drain to the nearest picosecond and sums rates in floating point (a link may end up to
// 1e-9 relative over its capacity), so a run can finish below the exact quotient by at most half a picosecond per
// transfer over the link plus that relative slack; the bound gives up more than both.
constexpr double kRelativeSlack = 1e-6;
constexpr double kSlackPerTransferSeconds = 1e-12;
}  // namespace

SimTime busiest_link_bound(Router& router, std::span<const CollectivePlan* const> channels,
                           const std::vector<std::vector<NodeId>>& gpus, const TransferCost& cost) {
  const Topology& topology = router.topology();
  std::vector<double> wire_bytes_on(topology.link_count(), 0.0);
  std::vector<std::uint64_t> transfers_on(topology.link_count(), 0);
  // A participant sends to the same few peers step after step: its wire bytes are summed per peer first, and each
  // route's links read once per peer instead of once per transfer.
  struct PeerTotal {
    const Route* route;  // the key: routes outlive PlanRoutes' slots, which a sender with many peers reuses
    double wire_bytes;
    std::uint64_t transfers;
  };
  std::vector<PeerTotal> totals;
  PlanStep step;
  for (std::size_t c = 0; c < channels.size(); ++c) {
    const CollectivePlan& plan = *channels[c];
    PlanRoutes routes(router, participant_nodes(plan, gpus[c]));
    for (std::uint32_t p = 0; p < plan.participant_count(); ++p) {
      totals.clear();
      for (std::uint32_t s = 0; s < plan.step_count(Rank{p}); ++s) {
        plan.step(Rank{p}, s, step);
        for (const PlanSend& send : step.sends) {
          const PeerRoute& peer = routes.route(Rank{p}, send.dst);
          auto total =
              std::find_if(totals.begin(), totals.end(), [&](const PeerTotal& t) { return t.route == peer.route; });
          if (total == totals.end()) total = totals.insert(totals.end(), PeerTotal{peer.route, 0.0, 0});
          total->wire_bytes += wire_bytes(cost, peer.route_class, send.bytes);
          ++total->transfers;
        }
      }
      for (const PeerTotal& total : totals) {
        for (const LinkId link : total.route->links) {
          wire_bytes_on[link.value()] += total.wire_bytes;
          transfers_on[link.value()] += total.transfers;
        }
      }
    }
  }
  double seconds = 0;
  for (std::uint32_t l = 0; l < wire_bytes_on.size(); ++l) {
    if (transfers_on[l] == 0) continue;
    const double exact = wire_bytes_on[l] / topology.link(LinkId{l}).bandwidth.bytes_per_second;
    seconds = std::max(seconds,
                       exact * (1 - kRelativeSlack) - static_cast<double>(transfers_on[l]) * kSlackPerTransferSeconds);
  }
  // A bound past the clock bounds nothing the clock can hold: give none, and let the simulation say what overflows.
  return SimTime::fits_seconds(seconds) ? SimTime::from_seconds(std::max(0.0, seconds)) : SimTime::zero();
}

}  // namespace syncsim
