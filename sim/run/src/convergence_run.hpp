#pragma once
// The convergence proxy run after an engine: its schedule replayed (sim/convergence) and the result put in the
// report's `convergence` section.
#include "syncsim/convergence/update_schedule.hpp"
#include "syncsim/scenario/scenario.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::run {

ConvergenceReport run_convergence(const Scenario& scenario, const convergence::UpdateSchedule& schedule);

}  // namespace syncsim::run
