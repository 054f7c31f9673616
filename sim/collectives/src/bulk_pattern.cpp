#include "bulk_pattern.hpp"

#include <optional>

#include "syncsim/collectives/transfer_cost.hpp"

namespace syncsim {

// One send and one receive per rank, links used by one transfer each, and the same transfer time on every route.
BulkPattern build_bulk_pattern(const CollectivePlan& plan, Router& router, const std::vector<NodeId>& nodes,
                               const ExecutorOptions& options, std::uint32_t step, PlanStep& scratch) {
  const Topology& topology = router.topology();
  BulkPattern pattern;
  std::vector<bool> link_used(topology.link_count(), false);
  std::optional<SimTime> transfer_time;
  for (std::uint32_t r = 0; r < nodes.size(); ++r) {
    plan.step(Rank{r}, step, scratch);
    if (scratch.sends.size() != 1 || scratch.recv_count != 1 || scratch.sends[0].dst_step != step) return {};
    if (r == 0) pattern.reduce_bytes = scratch.reduce_bytes;
    if (scratch.reduce_bytes != pattern.reduce_bytes) return {};
    const PlanSend& send = scratch.sends[0];
    const Route& route = router.route(nodes[r], nodes[send.dst.value()]);
    for (const LinkId link : route.links) {
      if (link_used[link.value()]) return {};
      link_used[link.value()] = true;
    }
    const SimTime drain =
        FlowModel::drain_time(wire_bytes(options.cost, topology, route, send.bytes), route.bottleneck);
    const SimTime t = drain + step_latency(options.cost, topology, route);
    if (transfer_time && *transfer_time != t) return {};
    transfer_time = t;
    pattern.drain_time = drain;
    pattern.transfers.push_back({&route, send.bytes});
  }
  pattern.usable = true;
  pattern.transfer_time = *transfer_time;
  pattern.duration = *transfer_time + reduction_time(options.reduction_rate, pattern.reduce_bytes);
  return pattern;
}

}  // namespace syncsim
