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
// 1e-9 of itself, or after 50 steps. When k is below 1% (the recoveries outlast any job, or nearly: more than 100
// times the training) the job never finishes: D is infinite.
//
// The checkpoint interval and the hot spares are choices a plan may vary (plan --checkpoint-intervals, --spares):
// neither changes the iteration, the memory or the checkpoint's size, so one engine run serves every JobPolicy,
// and job_goodputs builds the job's failure classes and checkpoint once for all of them.
#include <cstdint>
#include <optional>
#include <vector>

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

// How one job checkpoints and how many hot spare nodes stand by it.
struct JobPolicy {
  enum class Interval {
    scenario,  // the scenario's checkpoint.interval (or every_iterations), else Daly's optimum
    optimal,   // Daly's optimum for the job's MTBF and stall, whatever the scenario fixes
    fixed      // interval_seconds
  };
  Interval interval = Interval::scenario;
  double interval_seconds = 0;         // with Interval::fixed: > 0
  std::optional<std::int64_t> spares;  // hot spare nodes; nullopt: the scenario's reliability.spares
  // Stop the fixed point also when a move is no smaller than the one before: the sampled k's noise floor, reached
  // in a few steps where 1e-9 of D may take all 50 (the sampled mean moves D by ~1e-5 from step to step). A plan of
  // many pairs per point asks for it; the answer moves within that noise.
  bool stop_at_noise = false;
};

// The scenario must have a `reliability:` section and `report` be its run (run_scenario). With `kept_seconds`, the
// wall time that keeps that much training (above); without, the scenario's own reliability.duration.
JobGoodput job_goodput(const Scenario& scenario, Workspace& workspace, const TrainingReport& report,
                       std::optional<double> kept_seconds);

// job_goodput under each policy, in their order; JobPolicy{} gives job_goodput's answer exactly. An asynchronous
// save cannot start before the previous upload ends, so the optimum is at least the write (as the scenario's own
// interval is); a fixed interval is taken as it is (the caller refuses one shorter than the save).
std::vector<JobGoodput> job_goodputs(const Scenario& scenario, Workspace& workspace, const TrainingReport& report,
                                     std::optional<double> kept_seconds, const std::vector<JobPolicy>& policies);

}  // namespace syncsim::run
