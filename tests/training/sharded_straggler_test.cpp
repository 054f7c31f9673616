// Stragglers in the sharded engine: every collective joins every rank, so the job runs at its slowest rank's pace
// (sharded_run.hpp). The four-layer model of sharded_run_test.cpp: layers 0-3 forward 1 ms and backward 2 ms,
// units {3, 2} and {1, 0}, every collective 1 ms, the step 2 ms on each of 2 ranks: 16 ms an iteration.
#include <catch2/catch.hpp>

#include "hand_worked_setup.hpp"
#include "syncsim/training/sharded_run.hpp"

using namespace syncsim;
using syncsim::test::ms;

namespace {

ShardedRunSetup setup(std::function<double(std::int64_t)> slowest) {
  ShardedRunSetup s;
  s.layers.forward = {ms(1), ms(1), ms(1), ms(1)};
  s.layers.backward = {ms(2), ms(2), ms(2), ms(2)};
  s.units.buckets = {{Bytes{100}, {3, 2}, 2}, {Bytes{100}, {1, 0}, 0}};
  s.level = ShardingLevel::optimizer;
  s.ranks = 2;
  s.optimizer_step = ms(4);
  s.iterations = 2;
  s.collective_time = [](CollectiveOp, Bytes) { return ms(1); };
  s.slowest = std::move(slowest);
  return s;
}

}  // namespace

TEST_CASE("ZeRO-1 with a rank twice as slow runs at its pace", "[stragglers]") {
  // Gathers: unit 1 [0, 1), unit 0 [1, 2). Forward at 2 ms a layer: 3, 5, 7, 9. Backward at 4 ms: 13, 17 ->
  // reduce-scatter unit 0 [17, 18); 21, 25 -> unit 1 [25, 26). Step [26, 28): 28 ms, not 16.
  const ShardedRunResult r = run_sharded(setup([](std::int64_t) { return 2.0; }));
  CHECK(r.iteration_times[0] == ms(28));
  CHECK(r.compute == ms(24) * 2);
  CHECK(r.nominal_compute == ms(12) * 2);
  // The collectives keep their time: exposed = 28 - 24 - 2 per iteration, as at full speed (16 - 12 - 2).
  CHECK(r.exposed == ms(2) * 2);
}

TEST_CASE("a layer's inline communication is not slowed", "[stragglers]") {
  // Layer 3's forward is all communication (a tensor collective on the compute stream): it stays 1 ms, so forward
  // ends at 8 and everything after one ms earlier: 27 ms.
  ShardedRunSetup s = setup([](std::int64_t) { return 2.0; });
  s.layer_communication.forward = {ms(0), ms(0), ms(0), ms(1)};
  s.layer_communication.backward = {ms(0), ms(0), ms(0), ms(0)};
  CHECK(run_sharded(s).iteration_times[0] == ms(27));
}

TEST_CASE("a pace of 1 is the run without stragglers", "[stragglers]") {
  const ShardedRunResult plain = run_sharded(setup({}));
  const ShardedRunResult even = run_sharded(setup([](std::int64_t) { return 1.0; }));
  CHECK(plain.iteration_times == even.iteration_times);
  CHECK(plain.iteration_times[1] == ms(16));
  // Per iteration: the first iteration slow, the second not.
  const ShardedRunResult once = run_sharded(setup([](std::int64_t it) { return it == 0 ? 2.0 : 1.0; }));
  CHECK(once.iteration_times[0] == ms(28));
  CHECK(once.iteration_times[1] == ms(16));
}
