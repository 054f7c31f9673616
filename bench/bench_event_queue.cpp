// Event-queue throughput: schedule + dispatch pairs per second with a steady number of pending events
// (about 20 M/s were expected with a thousand pending when the engine was designed, docs/architecture.md §10;
// issue 2 asks for at least 10 M/s).
#include <benchmark/benchmark.h>

#include "syncsim/core/simulator.hpp"

namespace {

// Each dispatched event schedules one successor a pseudo-random delay later, keeping the pending count fixed.
struct Chain : syncsim::EventHandler {
  std::uint64_t remaining = 0;
  std::uint64_t state = 88172645463325252ULL;
  void on_event(syncsim::Simulator& sim, std::uint64_t payload) override {
    if (remaining == 0) return;
    --remaining;
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    sim.schedule_in(syncsim::SimTime::from_ps(static_cast<std::int64_t>(1 + state % 1'000'000)), *this, payload);
  }
};

void BM_ScheduleDispatch(benchmark::State& state) {
  const auto pending = static_cast<std::uint64_t>(state.range(0));
  constexpr std::uint64_t kEvents = 2'000'000;
  for (auto _ : state) {
    syncsim::Simulator sim(1);
    Chain chain;
    chain.remaining = kEvents;
    for (std::uint64_t i = 0; i < pending; ++i) {
      sim.schedule_in(syncsim::SimTime::from_ps(static_cast<std::int64_t>(i)), chain, i);
    }
    sim.run();
    benchmark::DoNotOptimize(sim.now());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kEvents));
  state.counters["events_per_second"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kEvents), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ScheduleDispatch)->Arg(16)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
