// What the convergence proxy adds to a run: a 64-worker, 200-iteration resnet50 run (8 DGX nodes,
// examples/resnet50-dgx-8gpu.yaml) through syncsim::run, without the proxy and with each proxy problem at its
// defaults, for synchronous AllReduce and for asynchronous parameter servers. The target: the proxy adds
// at most 20% to the simulation's time. docs/performance.md has the figures; bench/compare.sh runs it.
//
// The measured runs share one workspace, so every run after the first finds the AllReduce times cached; that makes
// the simulation faster and the proxy's share larger, never smaller.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace {

enum Proxy : std::int64_t { off = 0, logistic = 1, mlp = 2 };

void run_64_workers(benchmark::State& state, bool asynchronous) {
  std::vector<std::string> overrides{"cluster.topology.nodes=8", "training.iterations=200"};
  if (asynchronous) {
    overrides.insert(overrides.end(), {"training.strategy=async", "training.communication=parameter_server",
                                       "training.parameter_servers.count=8"});
  }
  if (state.range(0) == logistic) overrides.emplace_back("convergence.problem=logistic");
  if (state.range(0) == mlp) overrides.emplace_back("convergence.problem=mlp");
  const syncsim::Scenario scenario = syncsim::load_scenario(SYNCSIM_EXAMPLES_DIR "/resnet50-dgx-8gpu.yaml", overrides);
  double updates = 0;
  syncsim::run::Workspace workspace;
  for (auto _ : state) {
    const syncsim::run::RunOutput out = syncsim::run::run_scenario(scenario, workspace);
    updates = out.report.convergence ? static_cast<double>(out.report.convergence->updates) : 0;
    benchmark::DoNotOptimize(updates);
  }
  state.counters["proxy_updates"] = updates;
}

void BM_Sync64x200(benchmark::State& state) {
  run_64_workers(state, false);
}
void BM_Async64x200(benchmark::State& state) {
  run_64_workers(state, true);
}

BENCHMARK(BM_Sync64x200)->Arg(off)->Arg(logistic)->Arg(mlp)->Unit(benchmark::kMillisecond)->MinTime(2)->Repetitions(3);
BENCHMARK(BM_Async64x200)->Arg(off)->Arg(logistic)->Arg(mlp)->Unit(benchmark::kMillisecond)->MinTime(2)->Repetitions(3);

}  // namespace

BENCHMARK_MAIN();
