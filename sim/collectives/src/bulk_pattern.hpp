#pragma once
// A bulk step's shape (collective_executor.hpp, bulk path): a step every rank takes with one send and one receive,
// each transfer alone on its links, all taking the same time, so that one event can complete it for every rank.
// Checked once per pattern id the plan gives (CollectivePlan::uniform_pattern) and then reused.
#include <cstdint>
#include <vector>

#include "syncsim/collectives/collective_executor.hpp"

namespace syncsim {

struct BulkTransfer {
  const Route* route;
  double bytes;
};

// One validated uniform step shape: its transfers and the time it takes when they run alone.
struct BulkPattern {
  bool usable = false;
  std::vector<BulkTransfer> transfers;
  SimTime transfer_time;  // drain + latency, identical for every transfer
  SimTime drain_time;
  SimTime duration;  // transfer_time + reduction
  double reduce_bytes = 0;
  std::uint64_t unrecorded_steps = 0;  // completed steps whose link usage is not yet credited
};

// The shape of `step` with participant p on nodes[p] (every participant of the plan); not `usable` when the step is
// not uniform on this topology. `scratch` is the caller's buffer for the plan's steps.
BulkPattern build_bulk_pattern(const CollectivePlan& plan, Router& router, const std::vector<NodeId>& nodes,
                               const ExecutorOptions& options, std::uint32_t step, PlanStep& scratch);

}  // namespace syncsim
