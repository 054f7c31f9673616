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

JobGoodput at(const GoodputSetup& setup, double kept_seconds, double wall_seconds, int steps) {
  GoodputAssessment a = assess_at(setup, wall_seconds);
  return JobGoodput{.goodput = std::move(a.report),
                    .kept_seconds = kept_seconds,
                    .wall_seconds = wall_seconds,
                    .kept_share = a.kept_share,
                    .spare_gpus = a.spare_gpus,
                    .steps = steps};
}

}  // namespace

JobGoodput job_goodput(const Scenario& scenario, Workspace& workspace, const TrainingReport& report,
                       std::optional<double> kept_seconds) {
  SYNCSIM_INVARIANT(scenario.reliability.has_value(), "job_goodput needs a scenario with a reliability section");
  const ResolvedScenario context(scenario, workspace);
  const GoodputSetup setup = goodput_setup(context, report);
  if (!kept_seconds) {
    const double d = scenario.reliability->duration_seconds;
    JobGoodput out = at(setup, 0, d, 0);
    out.kept_seconds = out.kept_share * d;
    return out;
  }
  SYNCSIM_INVARIANT(*kept_seconds > 0 && std::isfinite(*kept_seconds), "a job's training must be finite and > 0");
  double wall = *kept_seconds;
  JobGoodput out = at(setup, *kept_seconds, wall, 0);
  for (int step = 1; step <= kMaxSteps; ++step) {
    if (!(out.kept_share > 0)) {
      out.wall_seconds = std::numeric_limits<double>::infinity();
      out.steps = step;
      return out;
    }
    const double next = *kept_seconds / out.kept_share;
    const bool settled = std::abs(next - wall) <= kTolerance * wall;
    wall = next;
    out = at(setup, *kept_seconds, wall, step);
    if (settled) break;
  }
  return out;
}

}  // namespace syncsim::run
