// run_sharded on a four-layer model whose every time is chosen (sharded_run.hpp): the hand-worked timelines of
// ZeRO-1/2 and ZeRO-3, and the bytes each moves per GPU, 2 (d - 1)/d G and 3 (d - 1)/d G.
#include <catch2/catch.hpp>

#include "hand_worked_setup.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/training/sharded_run.hpp"

using namespace syncsim;
using syncsim::test::ms;

namespace {

// Layers 0-3: forward 1 ms, backward 2 ms each. Unit 0 = layers {3, 2} (the last, ready first), unit 1 = {1, 0};
// 100 bytes each. Every reduce-scatter and all-gather takes 1 ms; the whole step 4 ms, 2 ms on each of 2 ranks.
ShardedRunSetup setup(ShardingLevel level, std::int64_t iterations = 1) {
  ShardedRunSetup s;
  s.layers.forward = {ms(1), ms(1), ms(1), ms(1)};
  s.layers.backward = {ms(2), ms(2), ms(2), ms(2)};
  s.units.buckets = {{Bytes{100}, {3, 2}, 2}, {Bytes{100}, {1, 0}, 0}};
  s.level = level;
  s.ranks = 2;
  s.optimizer_step = ms(4);
  s.iterations = iterations;
  s.collective_time = [](CollectiveOp, Bytes) { return ms(1); };
  return s;
}

}  // namespace

TEST_CASE("ZeRO-1/2: gather, forward, reduce-scatter as backward produces, then the sharded step") {
  // Gathers: unit 1 [0, 1), unit 0 [1, 2). Forward: layer 0 waits to 1, ends 2; 3; layer 2 waits for unit 0 (2),
  // ends 4; 5. Backward: 7, 9 -> reduce-scatter unit 0 [9, 10); 11, 13 -> unit 1 [13, 14). Step [14, 16).
  for (const ShardingLevel level : {ShardingLevel::optimizer, ShardingLevel::gradients}) {
    const ShardedRunResult r = run_sharded(setup(level, 3));
    for (const SimTime t : r.iteration_times) CHECK(t == ms(16));
    CHECK(r.compute == ms(12) * 3);
    CHECK(r.optimizer == ms(2) * 3);
    CHECK(r.exposed == ms(2) * 3);  // the first gather and the last reduce-scatter
    REQUIRE(r.collectives.size() == 12);
    CHECK(r.collectives[2].op == CollectiveOp::reduce_scatter);
    CHECK(r.collectives[2].start == ms(9));
    // Each collective moves (d - 1)/d of its unit per GPU: 2 x (1/2) x 200 bytes.
    CHECK(r.bytes_per_gpu_per_iteration == Approx(200.0));
  }
}

TEST_CASE("ZeRO-3: gathered for forward, again for backward one unit ahead, reduce-scattered after") {
  // Forward as ZeRO-1's, to 5. Backward: unit 0 gathered [5, 6); layer 3 from 6 with unit 1's gather prefetched
  // [6, 7); 8, 10 -> reduce-scatter unit 0 [10, 11); layer 1 from 10 (unit 1 there since 7): 12, 14 ->
  // reduce-scatter unit 1 [14, 15). Step [15, 17).
  const ShardedRunResult r = run_sharded(setup(ShardingLevel::full, 2));
  for (const SimTime t : r.iteration_times) CHECK(t == ms(17));
  CHECK(r.exposed == ms(3) * 2);
  CHECK(r.collectives.size() == 12);
  CHECK(r.bytes_per_gpu_per_iteration == Approx(300.0));  // 3 x (1/2) x 200
}

TEST_CASE("backward beside the collectives runs slower, and the extra is interference, not compute") {
  ShardedRunSetup s = setup(ShardingLevel::full);
  s.overlap_slowdown = 0.5;
  const ShardedRunResult r = run_sharded(s);
  CHECK(r.compute == ms(12));
  CHECK(r.interference == ms(4));  // all 8 ms of backward, 1.5 times slower
  CHECK(r.total == r.compute + r.optimizer + r.interference + r.exposed);
}

TEST_CASE("a sharded run needs something sharded, two ranks and units that name the model's layers") {
  CHECK_THROWS_AS(run_sharded(setup(ShardingLevel::none)), InputError);
  ShardedRunSetup one = setup(ShardingLevel::full);
  one.ranks = 1;
  CHECK_THROWS_AS(run_sharded(one), InputError);
  ShardedRunSetup bad = setup(ShardingLevel::full);
  bad.units.buckets[0].layers = {7};
  CHECK_THROWS_AS(run_sharded(bad), InputError);
  ShardedRunSetup negative = setup(ShardingLevel::optimizer);
  negative.collective_time = [](CollectiveOp, Bytes) { return SimTime::from_ps(-1); };
  CHECK_THROWS_AS(run_sharded(negative), InputError);
}

TEST_CASE("a long sharded run keeps its last iterations' spans only, and counts every byte") {
  const ShardedRunResult r = run_sharded(setup(ShardingLevel::optimizer, 100'000));
  CHECK(r.iteration_times.size() == 100'000);
  CHECK(r.collectives.size() <= 1024);
  CHECK(r.collectives.back().iteration == 99'999);
  CHECK(r.bytes_per_gpu_per_iteration == Approx(200.0));
  ShardedRunSetup empty = setup(ShardingLevel::full);
  empty.units.buckets[1].layers.clear();
  CHECK_THROWS_AS(run_sharded(empty), InputError);
}

TEST_CASE("FP8 all-gather: each gather moves its unit's FP8 bytes, the reduce-scatters their bf16 gradients") {
  // ZeRO-3 as above, with each unit's gather at 52 bytes (torchao's FP8 shard of 100 bf16 bytes: 50 elements at
  // 1 byte, plus the 2 weights' FP32 scales). Per GPU: (1/2) x (2 gathers x 2 units x 52 + 2 reduce-scatters x 100).
  ShardedRunSetup s = setup(ShardingLevel::full);
  s.gather_bytes = {Bytes{52}, Bytes{52}};
  const ShardedRunResult r = run_sharded(s);
  CHECK(r.bytes_per_gpu_per_iteration == Approx(0.5 * (4 * 52 + 2 * 100)));
  for (const ShardedCollective& c : r.collectives) {
    CHECK(c.bytes == Bytes{c.op == CollectiveOp::all_gather ? 52 : 100});
  }
  s.gather_bytes = {Bytes{52}};
  CHECK_THROWS_WITH(run_sharded(s), Catch::Contains("gather bytes must be given per unit"));
}
