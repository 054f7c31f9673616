// The cost of a frontier-scale fabric: building `dgx` (shared spines at 2,048 GPUs, rail planes with a core tier at
// 16,384 and 100,000) and routing a permutation on it (every GPU to the GPU half the cluster away, each route one
// bidirectional search). The planner builds such a topology per plan point, so both must stay cheap.
#include <benchmark/benchmark.h>

#include <string>

#include "syncsim/topology/router.hpp"
#include "syncsim/topology/topology_spec.hpp"

namespace {

std::string dgx(std::int64_t nodes) {
  return "dgx:nodes=" + std::to_string(nodes) + ",gpus=8,nic_bw=400Gbps";
}

void BM_BuildDgx(benchmark::State& state) {
  const std::string spec = dgx(state.range(0));
  for (auto _ : state) {
    const syncsim::Topology topology = syncsim::build_topology(spec);
    benchmark::DoNotOptimize(topology.link_count());
  }
  state.counters["gpus"] = static_cast<double>(state.range(0) * 8);
}

void BM_RouteHalfShift(benchmark::State& state) {
  const syncsim::Topology topology = syncsim::build_topology(dgx(state.range(0)));
  const std::size_t n = topology.gpu_count();
  for (auto _ : state) {
    syncsim::Router router(topology);
    std::size_t links = 0;
    for (std::size_t g = 0; g < n; ++g) links += router.gpu_route(g, (g + n / 2) % n).links.size();
    benchmark::DoNotOptimize(links);
  }
  state.counters["routes_per_second"] =
      benchmark::Counter(static_cast<double>(n) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_BuildDgx)->Arg(256)->Arg(2048)->Arg(12500)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RouteHalfShift)->Arg(256)->Arg(2048)->Arg(12500)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
