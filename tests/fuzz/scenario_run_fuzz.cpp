// Scenarios run through the engine (run::run_scenario), not only parsed: valid but extreme values (a bandwidth of
// 1 bps, a latency of 2000 h, a degradation factor of 1e-300, a batch of 10^12) must give an InputError (exit 2),
// never an internal error, a wrapped-around clock, a crash or unbounded memory.
//
// Limits keep one input fast, so the fuzzer explores values rather than long runs: at most 2 measured and 1 warm-up
// iteration, topologies of at most 16 GPUs (others are parsed, not run), a memory budget of 256 MB, no
// convergence replay and no calibration file (it would name a path on the fuzzing machine). Inputs are the
// scenario target's: YAML with `#--set` override lines.
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_targets.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim::fuzz {

namespace {

constexpr std::int64_t kMaxRunGpus = 16;

// Within the limits above; false: parse only.
bool small_enough_to_run(Scenario& s) {
  if (!small_enough_to_build(s.cluster.topology, kMaxRunGpus)) return false;
  if (s.calibration || s.training.latency_model.value == LatencySource::calibrated) return false;
  s.training.iterations = std::min<std::int64_t>(s.training.iterations, 2);
  s.training.warmup_iterations = std::min<std::int64_t>(s.training.warmup_iterations, 1);
  s.convergence.reset();
  return true;
}

}  // namespace

int fuzz_scenario_run(const std::uint8_t* data, std::size_t size) {
  static const bool budget_set = setenv("SYNCSIM_MEMORY_BUDGET", "256MB", 1) == 0;
  (void)budget_set;
  const std::string_view text = as_text(data, size);
  try {
    Scenario scenario = parse_scenario(text, "fuzz.yaml", set_lines(text));
    if (small_enough_to_run(scenario)) (void)run::run_scenario(scenario);
  } catch (const InputError&) {
    // The contract: bad input, extreme values included, is an InputError.
  }
  return 0;
}

}  // namespace syncsim::fuzz
