#pragma once
// Link loads of a synchronous run: every AllReduce the run placed (SyncTraceRecorder::collectives) carries the
// per-link traffic its simulation found (CollectiveOutcome::links). A link's utilization is the bytes it carried
// over what it could have carried: over the run, bytes / (bandwidth x mean factor x total); during one
// collective, that collective's bytes / (bandwidth then x its duration). The busiest links are those with the
// highest utilization over the run (then the longest busy time): a degraded link tops them, where ranking by busy
// time alone would tie every link its slowed flows cross.
//
// Each collective's traffic is the one simulated on the network as it was at the collective's start (a degraded
// link's busy time grows with its slowdown), and links are named by their end nodes, since a changed network is
// a copy of the topology.
#include "resolved_scenario.hpp"
#include "sync_trace.hpp"
#include "syncsim/training/network_timeline.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::run {

// Fills report.busiest_links (over report.total) and, for the busiest links, adds a track per link to the trace
// with a utilization counter per traced collective (its utilization while it runs, 0 after it).
void record_link_loads(ResolvedScenario& context, NetworkTimeline& network, SyncTraceRecorder& recorder,
                       TrainingReport& report);

}  // namespace syncsim::run
