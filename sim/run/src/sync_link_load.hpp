#pragma once
// Link loads of a synchronous run: every AllReduce the run placed (SyncTraceRecorder::collectives) carries the
// per-link traffic its simulation found (CollectiveOutcome::links), so the run's busiest links are those with
// the most busy time summed over its collectives, and a link's utilization during one collective is its busy
// time in that collective over the collective's duration.
//
// Approximation: the traffic is the intact network's (a degraded or failed link changes a collective's time, and
// the recorded start and end, but the bytes per link are taken from the same collective on the intact network).
#include "run_context.hpp"
#include "sync_trace.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::run {

// Fills report.busiest_links (over report.total) and, for the busiest links, adds a track per link to the trace
// with a utilization counter per traced collective (its average utilization while it runs, 0 after it).
void record_link_loads(RunContext& context, SyncTraceRecorder& recorder, TrainingReport& report);

}  // namespace syncsim::run
