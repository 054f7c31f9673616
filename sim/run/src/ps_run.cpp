#include <fmt/format.h>

#include "engines.hpp"

namespace syncsim::run {

RunOutput run_parameter_server(RunContext& context) {
  const Scenario& s = context.scenario();
  throw s.training.communication.error(
      fmt::format("strategy '{}' with communication '{}' is not simulated yet by syncsim run",
                  to_string(s.training.strategy.value), to_string(s.training.communication.value)));
}

}  // namespace syncsim::run
