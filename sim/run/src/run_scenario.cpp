#include "syncsim/run/run_scenario.hpp"

#include "engines.hpp"

namespace syncsim::run {

RunOutput run_scenario(const Scenario& scenario) {
  RunContext context(scenario);
  const TrainingConfig& t = scenario.training;
  if (t.communication.value == Communication::parameter_server || t.strategy.value == StrategyKind::hybrid) {
    return run_parameter_server(context);
  }
  return run_sync_allreduce(context);  // sync and local_sgd over AllReduce
}

}  // namespace syncsim::run
