#pragma once
// The convergence proxy run after an engine: its schedule replayed (sim/convergence) and the result put in the
// report's `convergence` section.
#include "syncsim/convergence/update_schedule.hpp"
#include "syncsim/scenario/scenario.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::run {

ConvergenceReport run_convergence(const Scenario& scenario, const convergence::UpdateSchedule& schedule);

// One update per iteration at its end, over all `workers` (a synchronous engine's schedule).
convergence::UpdateSchedule synchronous_schedule(std::int64_t workers, const std::vector<SimTime>& iteration_times);

}  // namespace syncsim::run
