#include "syncsim/run/run_scenario.hpp"

#include <fmt/format.h>

#include "engines.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim::run {

namespace {

constexpr const char* kNotYet = "not simulated yet by syncsim run (it runs strategy sync with communication allreduce)";

void check_supported(const Scenario& s) {
  if (s.training.strategy.value != StrategyKind::sync) {
    throw s.training.strategy.error(fmt::format("strategy '{}' is {}", to_string(s.training.strategy.value), kNotYet));
  }
  if (s.training.communication.value != Communication::allreduce) {
    throw s.training.communication.error(
        fmt::format("communication '{}' is {}", to_string(s.training.communication.value), kNotYet));
  }
  if (!s.faults.empty()) throw InputError(fmt::format("faults are {}", kNotYet), s.faults[0].where, s.faults[0].key);
  if (!s.degraded_links.empty()) {
    throw InputError(fmt::format("degraded links are {}", kNotYet), s.degraded_links[0].where, s.degraded_links[0].key);
  }
}

}  // namespace

RunOutput run_scenario(const Scenario& scenario) {
  check_supported(scenario);
  RunContext context(scenario);
  return run_sync_allreduce(context);
}

}  // namespace syncsim::run
