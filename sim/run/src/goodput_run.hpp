#pragma once
// The goodput assessment of a scenario with `reliability:` (docs/faults.md, "Goodput"): the engine's iteration
// time, the job's components from its topology (failure_table.hpp), its checkpoint from the memory model
// (checkpoint_cost.hpp), and the failure process sampled over the job's duration (goodput_model.hpp).
#include "syncsim/training/goodput_report.hpp"
#include "syncsim/training/training_report.hpp"

#include "resolved_scenario.hpp"

namespace syncsim::run {

// The scenario must have a reliability section; `report` is the engine's (its iteration times, causes, memory).
GoodputReport goodput_of(const ResolvedScenario& context, const TrainingReport& report);

}  // namespace syncsim::run
