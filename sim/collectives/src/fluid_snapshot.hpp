#pragma once
// One fluid simulation of a set of transfers on a fresh network, each started at its own offset: how the lockstep
// runners (lockstep_runner.hpp, pipeline_lockstep.hpp) time transfers that share links as much as their schedule
// overlaps them, without running the whole collective flow by flow.
#include <span>
#include <vector>

#include "syncsim/core/sim_time.hpp"
#include "syncsim/network/flow_model.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim::collectives_detail {

struct SnapshotTransfer {
  const Route* route = nullptr;
  double wire_bytes = 0;
  SimTime latency;  // paid after the last byte left
  SimTime offset;   // when the transfer starts
};

struct SnapshotTiming {
  // Per transfer, from its own start: its last byte left (drained), and it arrived (drained + latency).
  std::vector<SimTime> drained;
  std::vector<SimTime> arrived;
  std::vector<LinkTraffic> links;  // FlowModel::traffic() of the simulation
};

SnapshotTiming simulate_snapshot(const Topology& topology, std::span<const SnapshotTransfer> transfers);

}  // namespace syncsim::collectives_detail
