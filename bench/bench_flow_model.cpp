// Flow-model cost per flow: lone flows (the O(1) path every uncontended ring step takes) and flows that share
// one link (each start and finish re-solves the sharing component).
#include <benchmark/benchmark.h>

#include "syncsim/network/flow_model.hpp"
#include "syncsim/topology/topology_spec.hpp"

namespace {

// Keeps `width` flows in flight between GPU pairs; each finished flow starts the next one on the same pair.
struct Refill : syncsim::FlowObserver {
  syncsim::FlowModel* flows = nullptr;
  std::vector<const syncsim::Route*> routes;
  std::uint64_t remaining = 0;
  void on_flow_finished(syncsim::FlowId, std::uint64_t token) override {
    if (remaining == 0) return;
    --remaining;
    flows->start(*routes[token], 1e6, *this, token);
  }
};

void run(benchmark::State& state, const std::string& spec, bool shared_destination) {
  const syncsim::Topology topology = syncsim::build_topology(spec);
  syncsim::Router router(topology);
  const std::size_t n = topology.gpu_count();
  constexpr std::uint64_t kFlows = 1'000'000;
  for (auto _ : state) {
    syncsim::Simulator sim;
    syncsim::FlowModel flows(sim, topology);
    Refill refill;
    refill.flows = &flows;
    refill.remaining = kFlows;
    for (std::size_t i = 0; i + 1 < n; ++i) {
      refill.routes.push_back(&router.gpu_route(i, shared_destination ? n - 1 : i + 1));
    }
    for (std::size_t i = 0; i < refill.routes.size(); ++i) flows.start(*refill.routes[i], 1e6, refill, i);
    sim.run();
    benchmark::DoNotOptimize(sim.now());
  }
  state.counters["flows_per_second"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kFlows), benchmark::Counter::kIsRate);
}

void BM_LoneFlows(benchmark::State& state) {
  run(state, "switch:n=" + std::to_string(state.range(0)) + ",bw=100Gbps,lat=5us", false);
}
BENCHMARK(BM_LoneFlows)->Arg(64)->Arg(1024)->Unit(benchmark::kMillisecond);

// Incast: n-1 flows into one GPU share its downlink; every start and finish re-solves n-1 flows.
void BM_IncastFlows(benchmark::State& state) {
  run(state, "switch:n=" + std::to_string(state.range(0)) + ",bw=100Gbps,lat=5us", true);
}
BENCHMARK(BM_IncastFlows)->Arg(8)->Arg(64)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
