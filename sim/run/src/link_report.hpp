#pragma once
// The busiest links of a run, from the flow model's usage counters (training_report.hpp's LinkReport).
#include <vector>

#include "syncsim/network/flow_model.hpp"
#include "syncsim/topology/topology.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::run {

// Directed links with traffic, by utilization = bytes / (bandwidth x total) (then busy time, then link id), at
// most kBusiestLinks.
// `usage` is per directed link of `topology`, by LinkId (FlowModel::link_usage of each).
std::vector<LinkReport> busiest_links(const Topology& topology, const std::vector<LinkUsage>& usage, SimTime total);

}  // namespace syncsim::run
