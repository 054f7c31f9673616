#include "syncsim/run/run_scenario.hpp"

#include "bottleneck.hpp"
#include "engines.hpp"

namespace syncsim::run {

namespace {

RunOutput run_engine(const Scenario& scenario) {
  RunContext context(scenario);
  const TrainingConfig& t = scenario.training;
  if (t.communication.value == Communication::parameter_server || t.strategy.value == StrategyKind::hybrid) {
    return run_parameter_server(context);
  }
  return run_sync_allreduce(context);  // sync and local_sgd over AllReduce
}

}  // namespace

RunOutput run_scenario(const Scenario& scenario) {
  RunOutput out = run_engine(scenario);
  out.report.bottleneck = attribute_bottleneck(out.report);
  return out;
}

}  // namespace syncsim::run
