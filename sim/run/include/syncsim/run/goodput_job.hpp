#pragma once
// The goodput of a job given by its work, for `syncsim plan` (docs/planner.md, "Failures"): the job must train
// `kept` seconds of iterations at the engine's iteration time, and failures, restarts and checkpoint saves stretch
// its wall time D. Only a share k(D) of the wall time trains iterations that are kept (goodput_model.hpp: the time
// up, less the checkpoint stalls and the lost progress), so D solves
//
//   D = kept / k(D)
//
// k hardly depends on D: its expectation, with synchronous saving and no spares to run out of, does not at all,
//
//   E[k] = (1 - lambda c) I / (I + s) - lambda I / 2
//
// (lambda the interruptions per second, c one recovery: detection + restart + restore, I the checkpoint interval,
// s its stall); the sampled runs and the spares' repairs make it vary a little with D. So the fixed-point
// iteration D <- kept / k(D), from D = kept, settles in a few steps; it stops when a step moves D by less than
// 1e-9 of itself, or after 50 steps. When k is 0 (the recoveries outlast any job) the job never finishes: D is
// infinite.
#include <optional>

#include "syncsim/run/workspace.hpp"
#include "syncsim/scenario/scenario.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::run {

struct JobGoodput {
  GoodputReport goodput;    // at the wall time (its duration_seconds), the checkpoint interval the point's own
  double kept_seconds = 0;  // the training the job must keep
  double wall_seconds = 0;  // D; infinite when the job never finishes
  double kept_share = 0;    // k(D)
  double spare_gpus = 0;    // the hot spares' GPUs, paid beside the job's
  int steps = 0;            // fixed-point steps taken
};

// The scenario must have a `reliability:` section and `report` be its run (run_scenario). With `kept_seconds`, the
// wall time that keeps that much training (above); without, the scenario's own reliability.duration.
JobGoodput job_goodput(const Scenario& scenario, Workspace& workspace, const TrainingReport& report,
                       std::optional<double> kept_seconds);

}  // namespace syncsim::run
