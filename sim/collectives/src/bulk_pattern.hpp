#pragma once
// A bulk step's shape (collective_executor.hpp, bulk path): a step every participant takes at once, whose
// transfers all take the same time, so that one event can complete it for every participant. Checked once per
// pattern id the plan gives (CollectivePlan::uniform_pattern) and then reused.
//
// Two shapes qualify:
//   exclusive  one send and one receive per participant, each transfer alone on its links (a ring step): every
//              transfer drains at its route's bottleneck rate, as a lone flow in the flow model does (a step of
//              one send each whose transfers share a link is not usable);
//   shared     several sends per participant, sharing links (an all-to-all step: a rank's n-1 sends share
//              its uplink): the step's transfers are solved once for max-min rates (MaxMinSolver, as the flow
//              model would solve them when they all start together), and the step qualifies when every transfer
//              then drains in the same picosecond and pays the same latency: they all finish together, no rate
//              changes mid-step, and the closed form is the per-flow result. A step whose rates differ (an
//              oversubscribed fabric, links of different speeds) is not usable and runs flow by flow.
#include <cstdint>
#include <vector>

#include "syncsim/collectives/collective_executor.hpp"

namespace syncsim {

// One validated uniform step shape: the links it holds and the time it takes when it runs alone.
struct BulkPattern {
  bool usable = false;
  // Every link the step uses, once each, as a one-link route (what FlowModel::record_usage takes), and the bytes
  // the step puts on it (on the wire: payload / efficiency).
  std::vector<Route> links;
  std::vector<double> link_wire_bytes;
  // The step's transfers and their payload summed once, so that completing a step costs the same at any rank count.
  std::uint64_t transfer_count = 0;
  double step_bytes = 0;
  SimTime transfer_time;  // drain + latency, identical for every transfer
  SimTime drain_time;
  SimTime duration;                    // transfer_time + reduction
  double reduce_bytes = 0;             // per participant
  std::uint64_t unrecorded_steps = 0;  // completed steps whose link usage is not yet credited
};

// The shape of `step` with participant p on nodes[p] (every participant of the plan); not `usable` when the step is
// not uniform on this topology. `scratch` is the caller's buffer for the plan's steps.
BulkPattern build_bulk_pattern(const CollectivePlan& plan, Router& router, const std::vector<NodeId>& nodes,
                               const ExecutorOptions& options, std::uint32_t step, PlanStep& scratch);

// The pattern's links: all idle (no flow, no claim); claimed for `claimant`; released, crediting the usage of
// the pattern's completed steps first.
bool links_idle(const BulkPattern& pattern, const FlowModel& flows);
void claim_links(const BulkPattern& pattern, FlowModel& flows, LinkClaimant& claimant);
void release_links(BulkPattern& pattern, FlowModel& flows);
// Credits the part of an interrupted step already pushed: `fraction` of its wire bytes, busy for `busy`.
void record_partial_step(const BulkPattern& pattern, FlowModel& flows, double fraction, SimTime busy);

}  // namespace syncsim
