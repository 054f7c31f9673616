#pragma once
// The training engines behind run_scenario, one per family of strategies.
#include "run_context.hpp"
#include "syncsim/run/run_scenario.hpp"

namespace syncsim::run {

// strategy sync with communication allreduce: per-rank timelines over cached AllReduce times
// (synchronous_run.hpp).
RunOutput run_sync_allreduce(RunContext& context);

}  // namespace syncsim::run
