#include "load_bound.hpp"

#include <algorithm>
#include <vector>

#include "plan_routes.hpp"
#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/collectives/nvls_plan.hpp"
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
  std::vector<PeerSends> totals;
  for (std::size_t c = 0; c < channels.size(); ++c) {
    const CollectivePlan& plan = *channels[c];
    PlanRoutes routes(router, participant_nodes(plan, gpus[c]));
    for (std::uint32_t p = 0; p < plan.participant_count(); ++p) {
      plan.send_totals(Rank{p}, totals);  // a peer's bytes at once, not transfer by transfer
      for (const PeerSends& total : totals) {
        const PeerRoute& peer = routes.route(Rank{p}, total.dst);
        const double bytes = wire_bytes(cost, peer.route_class, total.bytes);
        for (const LinkId link : peer.route->links) {
          wire_bytes_on[link.value()] += bytes;
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

SimTime busbw_floor(const CollectiveSpec& spec, std::size_t ranks) {
  if (!spec.busbw_cap || spec.latency != LatencySource::nccl || ranks < 2) return SimTime::zero();
  double bytes = static_cast<double>(spec.size.value) * bus_factor(spec.op, ranks);
  if (spec.op == CollectiveOp::allreduce) {
    // capped()'s NVLS bytes: its domain holds at most `ranks` (fewer ranks, more bytes), and channels only lower
    // the generation's efficiency.
    bytes = std::min(bytes, nvls_nvlink_bytes(spec.size, ranks) / nvls_efficiency(spec.compute_capability, 0));
  }
  return SimTime::from_ps(static_cast<std::int64_t>(bytes / spec.busbw_cap->bytes_per_second * 1e12));
}

}  // namespace syncsim
