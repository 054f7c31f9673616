#include "bulk_pattern.hpp"

#include <algorithm>
#include <optional>

#include "syncsim/collectives/transfer_cost.hpp"
#include "syncsim/network/max_min_solver.hpp"

namespace syncsim {

namespace {

struct StepTransfer {
  std::uint32_t src;
  std::uint32_t dst;
  double bytes;
  const Route* route = nullptr;
  double wire = 0;
};

// Every participant's sends of `step`, or nullopt when the step is not uniform: a send feeding another step, a
// participant expecting other receives than the ones addressed to it, or reductions of different sizes.
std::optional<std::vector<StepTransfer>> read_step(const CollectivePlan& plan, std::size_t participants,
                                                   std::uint32_t step, PlanStep& scratch, double& reduce_bytes) {
  std::vector<StepTransfer> transfers;
  std::vector<std::uint32_t> expected(participants, 0);
  std::vector<std::uint32_t> addressed(participants, 0);
  for (std::uint32_t r = 0; r < participants; ++r) {
    plan.step(Rank{r}, step, scratch);
    if (scratch.sends.empty() || scratch.recv_count == 0) return std::nullopt;
    if (r == 0) reduce_bytes = scratch.reduce_bytes;
    if (scratch.reduce_bytes != reduce_bytes) return std::nullopt;
    expected[r] = scratch.recv_count;
    for (const PlanSend& send : scratch.sends) {
      if (send.dst_step != step || send.dst.value() >= participants) return std::nullopt;
      ++addressed[send.dst.value()];
      transfers.push_back({r, send.dst.value(), send.bytes});
    }
  }
  if (expected != addressed) return std::nullopt;
  return transfers;
}

void find_routes(std::vector<StepTransfer>& transfers, Router& router, const std::vector<NodeId>& nodes,
                 const ExecutorOptions& options) {
  for (StepTransfer& t : transfers) {
    t.route = &router.route(nodes[t.src], nodes[t.dst]);
    t.wire = wire_bytes(options.cost, router.topology(), *t.route, t.bytes);
  }
}

// Each transfer alone on its links: its route's bottleneck rate. The last transfer's drain stands for all (they
// may differ where latencies make up the difference).
bool time_exclusive(const std::vector<StepTransfer>& transfers, const Topology& topology,
                    const ExecutorOptions& options, BulkPattern& pattern) {
  std::optional<SimTime> transfer_time;
  for (const StepTransfer& t : transfers) {
    const SimTime drain = FlowModel::drain_time(t.wire, t.route->bottleneck);
    const SimTime total = drain + step_latency(options.cost, topology, *t.route);
    if (transfer_time && *transfer_time != total) return false;
    transfer_time = total;
    pattern.drain_time = drain;
  }
  pattern.transfer_time = *transfer_time;
  return true;
}

// Transfers sharing links: max-min rates for all of them at once; usable when every one drains in the same
// picosecond and pays the same latency.
bool time_shared(const std::vector<StepTransfer>& transfers, const std::vector<LinkId>& links,
                 std::vector<std::uint32_t>& solver_index, const Topology& topology, const ExecutorOptions& options,
                 BulkPattern& pattern) {
  MaxMinSolver solver;
  for (const LinkId link : links) {
    solver_index[link.value()] = solver.add_link(topology.link(link).bandwidth.bytes_per_second);
  }
  std::vector<std::uint32_t> hops;
  for (const StepTransfer& t : transfers) {
    hops.clear();
    for (const LinkId link : t.route->links) hops.push_back(solver_index[link.value()]);
    solver.add_flow(hops);
  }
  solver.solve();
  for (std::uint32_t i = 0; i < transfers.size(); ++i) {
    const StepTransfer& t = transfers[i];
    const SimTime drain = FlowModel::drain_time(t.wire, Bandwidth{solver.rate(i)});
    const SimTime total = drain + step_latency(options.cost, topology, *t.route);
    if (i > 0 && (drain != pattern.drain_time || total != pattern.transfer_time)) return false;
    pattern.drain_time = drain;
    pattern.transfer_time = total;
  }
  return true;
}

}  // namespace

BulkPattern build_bulk_pattern(const CollectivePlan& plan, Router& router, const std::vector<NodeId>& nodes,
                               const ExecutorOptions& options, std::uint32_t step, PlanStep& scratch) {
  const Topology& topology = router.topology();
  BulkPattern pattern;
  std::optional<std::vector<StepTransfer>> transfers =
      read_step(plan, nodes.size(), step, scratch, pattern.reduce_bytes);
  if (!transfers) return {};
  find_routes(*transfers, router, nodes, options);

  // Each link once, in the order the transfers first use it, with the bytes all of them put on it.
  constexpr std::uint32_t kUnused = ~std::uint32_t{0};
  std::vector<std::uint32_t> slot(topology.link_count(), kUnused);
  std::vector<LinkId> links;
  bool exclusive = true;
  for (const StepTransfer& t : *transfers) {
    for (const LinkId link : t.route->links) {
      std::uint32_t& s = slot[link.value()];
      if (s == kUnused) {
        s = static_cast<std::uint32_t>(links.size());
        links.push_back(link);
        pattern.link_wire_bytes.push_back(0);
      } else {
        exclusive = false;
      }
      pattern.link_wire_bytes[s] += t.wire;
    }
  }
  // One send and one receive per participant (a ring's step) qualifies only with links of its own; several sends
  // per participant (an all-to-all's) are solved together.
  const bool one_send_each = transfers->size() == nodes.size();
  if (one_send_each && !exclusive) return {};
  const bool timed = one_send_each ? time_exclusive(*transfers, topology, options, pattern)
                                   : time_shared(*transfers, links, slot, topology, options, pattern);
  if (!timed) return {};
  for (const LinkId link : links)
    pattern.links.push_back(Route{{link}, SimTime::zero(), topology.link(link).bandwidth});
  pattern.transfer_count = transfers->size();
  for (const StepTransfer& t : *transfers) pattern.step_bytes += t.bytes;
  pattern.usable = true;
  pattern.duration = pattern.transfer_time + reduction_time(options.reduction_rate, pattern.reduce_bytes);
  return pattern;
}

bool links_idle(const BulkPattern& pattern, const FlowModel& flows) {
  return std::all_of(pattern.links.begin(), pattern.links.end(),
                     [&](const Route& link) { return flows.idle(link.links.front()); });
}

void claim_links(const BulkPattern& pattern, FlowModel& flows, LinkClaimant& claimant) {
  for (const Route& link : pattern.links) flows.claim(link.links.front(), claimant);
}

void release_links(BulkPattern& pattern, FlowModel& flows) {
  const auto steps = static_cast<std::int64_t>(pattern.unrecorded_steps);
  for (std::size_t k = 0; k < pattern.links.size(); ++k) {
    flows.release(pattern.links[k].links.front());
    if (steps > 0) {
      flows.record_usage(pattern.links[k], pattern.link_wire_bytes[k] * static_cast<double>(steps),
                         pattern.drain_time * steps);
    }
  }
  pattern.unrecorded_steps = 0;
}

void record_partial_step(const BulkPattern& pattern, FlowModel& flows, double fraction, SimTime busy) {
  for (std::size_t k = 0; k < pattern.links.size(); ++k) {
    flows.record_usage(pattern.links[k], pattern.link_wire_bytes[k] * fraction, busy);
  }
}

}  // namespace syncsim
