#pragma once
// The trace of `syncsim run`: replays run_synchronous (synchronous_run.hpp) step by step and records, per worker,
// a compute track (forward and backward per micro-batch, optimizer step, idle gaps) and a communication track
// (one span per bucket AllReduce, from the moment every rank has joined to its end).
//
// Cap: every iteration is traced when workers x iterations <= kTraceAllIterationsCap; otherwise only the last
// iteration, so that a large run's trace stays small (a few spans per worker).
#include <cstdint>
#include <string>

#include "syncsim/trace/trace.hpp"
#include "syncsim/training/synchronous_run.hpp"

namespace syncsim::run {

inline constexpr std::int64_t kTraceAllIterationsCap = 1024;

trace::Trace build_sync_trace(const SynchronousRunSetup& setup, const std::string& scenario_name);

}  // namespace syncsim::run
