// Scenario files: parse_scenario on the input, and build_scenario_topology on what parses (within the size cap).
// Not run_scenario: a parsed scenario can ask for hours of simulated training, which says nothing about reading.
//
// Lines starting with `#--set ` are also passed as overrides (`#--set training.iterations=5`), so the fuzzer
// reaches the override parser too; to YAML they are comments, so real scenario files serve as seeds unchanged.
#include <string>
#include <vector>

#include "fuzz_targets.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim::fuzz {

int fuzz_scenario(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  const std::vector<std::string> overrides = set_lines(text);
  try {
    const Scenario scenario = parse_scenario(text, "fuzz.yaml", overrides);
    if (small_enough_to_build(scenario.cluster.topology)) (void)build_scenario_topology(scenario);
  } catch (const InputError&) {
    // The contract: bad input is an InputError.
  }
  return 0;
}

}  // namespace syncsim::fuzz
