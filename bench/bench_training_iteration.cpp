// Wall time of simulating one training iteration end to end, the way `syncsim run` does it:
//   examples/resnet50-dgx-8gpu.yaml with cluster.topology.nodes = 128 and 512 (1,024 and 4,096 GPUs), ring
//   AllReduce, 1 iteration.
// Almost all of it is the bucket AllReduces (each distinct size simulated once, eight channels on the DGX
// fabric), so this tracks the multi-channel fast path of the collectives (lockstep_runner.hpp). The issue's
// targets: at most 2 s for 1,024 GPUs and 10 s for 4,096. docs/performance.md has the figures; bench/compare.sh
// runs it.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace {

void simulate_resnet50_iteration(benchmark::State& state, const char* algorithm) {
  const std::vector<std::string> overrides{fmt::format("cluster.topology.nodes={}", state.range(0)),
                                           fmt::format("training.algorithm={}", algorithm), "training.iterations=1"};
  const syncsim::Scenario scenario = syncsim::load_scenario(SYNCSIM_EXAMPLES_DIR "/resnet50-dgx-8gpu.yaml", overrides);
  double simulated_ms = 0;
  for (auto _ : state) {
    const syncsim::run::RunOutput out = syncsim::run::run_scenario(scenario);
    simulated_ms = out.report.iteration_mean.seconds() * 1e3;
    benchmark::DoNotOptimize(simulated_ms);
  }
  state.counters["gpus"] = static_cast<double>(state.range(0) * 8);
  state.counters["iteration_ms"] = simulated_ms;  // the simulated iteration, to spot a change in the answer
}

void BM_ResNet50IterationRing(benchmark::State& state) {
  simulate_resnet50_iteration(state, "ring");
}
void BM_ResNet50IterationAuto(benchmark::State& state) {
  simulate_resnet50_iteration(state, "auto");
}

// One run each is enough to read seconds; more would take a minute per size.
BENCHMARK(BM_ResNet50IterationRing)->Arg(128)->Arg(512)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_ResNet50IterationAuto)->Arg(128)->Arg(512)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
