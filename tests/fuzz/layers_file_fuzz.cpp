// A layers file (`model.layers: FILE`, as `syncsim import-model` writes it) read as a scenario reads it: the input
// is written to a temporary file that a fixed two-GPU scenario names, parsed (read_input_file, the YAML loader,
// the layers' checks, errors at the file's own lines), then sized by the memory check and, for a model of at most
// kMaxRunLayers layers, run for one iteration: the layers' FLOPs, bytes and shapes reach the compute model and the
// clock, where a valid but extreme count (10^18 FLOPs a sample, 2^40 saved elements) must end as an InputError.
#include <string>

#include "fuzz_targets.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim::fuzz {

namespace {

constexpr std::size_t kMaxRunLayers = 1000;

std::string scenario_naming(const std::filesystem::path& layers) {
  return "name: fuzz-layers\n"
         "cluster: {gpu: A100-SXM4-80GB, topology: \"switch:n=2,bw=100Gbps,lat=2us\"}\n"
         "model: {layers: \"" +
         layers.string() +
         "\", batch_per_gpu: 8, precision: fp16}\n"
         "training: {strategy: sync, iterations: 1}\n";
}

}  // namespace

int fuzz_layers_file(const std::uint8_t* data, std::size_t size) {
  static const bool budget_set = setenv("SYNCSIM_MEMORY_BUDGET", "256MB", 1) == 0;
  (void)budget_set;
  const std::filesystem::path path = scratch_folder("layers-file") / "layers.yaml";
  write_scratch_file(path, as_text(data, size));
  try {
    const Scenario scenario = parse_scenario(scenario_naming(path), "fuzz.yaml");
    (void)run::scenario_memory(scenario);
    if (scenario.model.layers.size() <= kMaxRunLayers) (void)run::run_scenario(scenario);
  } catch (const InputError&) {
    // The contract: bad input, extreme values included, is an InputError.
  }
  return 0;
}

}  // namespace syncsim::fuzz
