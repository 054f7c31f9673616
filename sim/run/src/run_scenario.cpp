#include "syncsim/run/run_scenario.hpp"

#include "bottleneck.hpp"
#include "convergence_run.hpp"
#include "engines.hpp"

namespace syncsim::run {

namespace {

RunOutput run_engine(const Scenario& scenario, convergence::UpdateSchedule* schedule, const RunProgress* progress) {
  RunContext context(scenario, progress);
  const TrainingConfig& t = scenario.training;
  if (t.communication.value == Communication::parameter_server || t.strategy.value == StrategyKind::hybrid) {
    return run_parameter_server(context, schedule);
  }
  return run_sync_allreduce(context, schedule);  // sync and local_sgd over AllReduce
}

}  // namespace

RunOutput run_scenario(const Scenario& scenario, const RunProgress* progress) {
  convergence::UpdateSchedule schedule;
  RunOutput out = run_engine(scenario, scenario.convergence ? &schedule : nullptr, progress);
  out.report.bottleneck = attribute_bottleneck(out.report);
  if (scenario.convergence) out.report.convergence = run_convergence(scenario, schedule);
  return out;
}

}  // namespace syncsim::run
