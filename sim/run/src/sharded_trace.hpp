#pragma once
// The trace of a sharded run (sharded_run.hpp): one rank's compute and communication, which is every rank's.
#include "syncsim/scenario/scenario.hpp"
#include "syncsim/trace/trace.hpp"
#include "syncsim/training/sharded_run.hpp"

namespace syncsim::run {

// Tracks "worker 0 compute" and "worker 0 communication" (the GUI's lane of two rows), and with HSDP "worker 0
// replicas" for the AllReduces across the replicas, on their own stream.
trace::Trace sharded_trace(const Scenario& scenario, const ShardedRunResult& result);

}  // namespace syncsim::run
