#pragma once
// The goodput assessment of a scenario with `reliability:` (docs/faults.md, "Goodput"): the engine's iteration
// time, the job's components from its topology (failure_table.hpp), its checkpoint from the memory model
// (checkpoint_cost.hpp), and the failure process sampled over the job's duration (goodput_model.hpp).
#include "syncsim/training/goodput_report.hpp"
#include "syncsim/training/training_report.hpp"

#include <optional>
#include <vector>

#include "failure_table.hpp"
#include "goodput_model.hpp"
#include "resolved_scenario.hpp"
#include "syncsim/trace/trace.hpp"

namespace syncsim::run {

// What the assessment needs of a scenario before a duration is chosen: its failure classes, checkpoint and costs.
// The checkpoint interval (the optimum from the MTBF, which no duration changes) is fixed here.
struct GoodputSetup {
  GoodputReport report;  // the checkpoint, the interval, the iteration, spares; no outcome yet
  GoodputInputs inputs;
  std::vector<FailureClass> classes;
  bool interval_is_duration = false;  // nothing to save or no failures: one interval the whole job
};

// The scenario must have a reliability section; `report` is the engine's (its iteration times, causes, memory).
GoodputSetup goodput_setup(const ResolvedScenario& context, const TrainingReport& report);

struct GoodputAssessment {
  GoodputReport report;
  double kept_share = 0;  // of the wall time, the training kept (productive before the straggler loss), mean
  double spare_gpus = 0;  // the hot spares' GPUs
};

// `interval` as a checkpoint can keep it: an asynchronous save cannot start before the previous upload ends, so the
// interval is at least the write.
double startable_interval(const GoodputReport& g, double interval);

// The failure process sampled over a job of `duration_seconds` wall time.
GoodputAssessment assess_at(const GoodputSetup& setup, double duration_seconds);

// The model's inputs for a job of `duration_seconds`, as assess_at samples them.
GoodputInputs inputs_at(const GoodputSetup& setup, double duration_seconds);

// The job timeline (job_timeline.hpp) of the scenario's own duration: the first sample of its seed, as a Chrome
// trace; none when the duration is past the picosecond clock (about 106 days).
std::optional<trace::Trace> job_timeline_of(const GoodputSetup& setup, const Scenario& scenario);

}  // namespace syncsim::run
