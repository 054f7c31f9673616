#include "syncsim/run/goodput_job.hpp"

#include <cmath>
#include <limits>

#include "syncsim/core/input_error.hpp"

#include "goodput_run.hpp"
#include "resolved_scenario.hpp"

namespace syncsim::run {

namespace {

constexpr double kTolerance = 1e-9;  // of D: far below what a plan prints, above the sampled mean's rounding
constexpr int kMaxSteps = 50;
// A job that keeps less than 1% of its wall time (more than 100 times its training) never finishes for a plan's
// purposes; solving for its D would sample ever longer runs (the cost grows with D), so it stops there: infinite.
constexpr double kMinKeptShare = 0.01;

JobGoodput at(const GoodputSetup& setup, double kept_seconds, double wall_seconds, int steps) {
  GoodputAssessment a = assess_at(setup, wall_seconds);
  return JobGoodput{.goodput = std::move(a.report),
                    .kept_seconds = kept_seconds,
                    .wall_seconds = wall_seconds,
                    .kept_share = a.kept_share,
                    .spare_gpus = a.spare_gpus,
                    .steps = steps};
}

// The setup under `policy`: the scenario's own (goodput_setup) but for the interval and the spares.
GoodputSetup with_policy(GoodputSetup setup, const JobPolicy& policy) {
  GoodputReport& g = setup.report;
  if (policy.spares) {
    g.spares = *policy.spares;
    setup.inputs.spares = *policy.spares;
  }
  if (policy.interval == JobPolicy::Interval::scenario) return setup;
  double interval = policy.interval_seconds;
  if (policy.interval == JobPolicy::Interval::optimal) {
    interval = startable_interval(g, g.checkpoint_interval_optimal_seconds);
  }
  g.checkpoint_interval_seconds = interval;
  setup.inputs.interval_seconds = interval;
  // A fixed interval checkpoints even a job with nothing to save; the optimum of such a job is the whole job.
  setup.interval_is_duration = !(interval > 0);
  return setup;
}

// D = kept / k(D) by fixed-point iteration from D = kept (above), or the scenario's own duration without `kept`.
JobGoodput solve(const GoodputSetup& setup, const Scenario& scenario, std::optional<double> kept_seconds,
                 bool stop_at_noise) {
  if (!kept_seconds) {
    const double d = scenario.reliability->duration_seconds;
    JobGoodput out = at(setup, 0, d, 0);
    out.kept_seconds = out.kept_share * d;
    return out;
  }
  SYNCSIM_INVARIANT(*kept_seconds > 0 && std::isfinite(*kept_seconds), "a job's training must be finite and > 0");
  double wall = *kept_seconds;
  double last_move = std::numeric_limits<double>::infinity();
  JobGoodput out = at(setup, *kept_seconds, wall, 0);
  for (int step = 1; step <= kMaxSteps; ++step) {
    if (!(out.kept_share >= kMinKeptShare)) {
      out.wall_seconds = std::numeric_limits<double>::infinity();
      out.steps = step;
      return out;
    }
    const double next = *kept_seconds / out.kept_share;
    const double move = std::abs(next - wall);
    // A contraction shrinks every move until the sampled k's noise is all that is left: a move no smaller than the
    // last one is that floor (JobPolicy::stop_at_noise).
    const bool settled = move <= kTolerance * wall || (stop_at_noise && move >= last_move);
    last_move = move;
    wall = next;
    out = at(setup, *kept_seconds, wall, step);
    if (settled) break;
  }
  return out;
}

}  // namespace

JobGoodput job_goodput(const Scenario& scenario, Workspace& workspace, const TrainingReport& report,
                       std::optional<double> kept_seconds) {
  return job_goodputs(scenario, workspace, report, kept_seconds, {JobPolicy{}}).front();
}

std::vector<JobGoodput> job_goodputs(const Scenario& scenario, Workspace& workspace, const TrainingReport& report,
                                     std::optional<double> kept_seconds, const std::vector<JobPolicy>& policies) {
  SYNCSIM_INVARIANT(scenario.reliability.has_value(), "job_goodput needs a scenario with a reliability section");
  const ResolvedScenario context(scenario, workspace);
  const GoodputSetup setup = goodput_setup(context, report);
  std::vector<JobGoodput> out;
  out.reserve(policies.size());
  for (const JobPolicy& policy : policies) {
    SYNCSIM_INVARIANT(policy.interval != JobPolicy::Interval::fixed || policy.interval_seconds > 0,
                      "a fixed checkpoint interval must be > 0");
    out.push_back(solve(with_policy(setup, policy), scenario, kept_seconds, policy.stop_at_noise));
  }
  return out;
}

}  // namespace syncsim::run
