// The model-parallel engine: data-parallel bytes in closed form, the pipeline's bubble, overlap and causal exposure.
#include <catch2/catch.hpp>

#include "syncsim/core/input_error.hpp"
#include "syncsim/training/model_parallel_run.hpp"

using namespace syncsim;

namespace {
constexpr std::int64_t kMB = 1'000'000;

ModelParallelSetup one_stage(ShardingLevel sharding, std::int64_t data, SimTime per_collective) {
  ModelParallelSetup s;
  s.stages = 1;
  s.micro_batches = 2;
  s.sharding = sharding;
  s.data = data;
  ChunkWork w;
  w.forward_compute = SimTime::from_ms(10);
  w.backward_compute = SimTime::from_ms(20);
  w.units = {{Bytes{100 * kMB}, 0.5}, {Bytes{50 * kMB}, 1.0}};
  s.work = {{w}};
  s.optimizer_step = {SimTime::from_ms(8)};
  s.iterations = 3;
  s.data_collective = [per_collective](CollectiveOp, Bytes, bool) { return per_collective; };
  return s;
}
}  // namespace

TEST_CASE("data-parallel bytes per GPU: 2 (d - 1)/d x G replicated and under ZeRO-1, (m + 1) under ZeRO-2",
          "[model_parallel]") {
  const double g = 150.0 * kMB;
  for (const std::int64_t d : {2, 4, 64}) {
    const double share = static_cast<double>(d - 1) / static_cast<double>(d);
    for (const ShardingLevel level : {ShardingLevel::none, ShardingLevel::optimizer}) {
      const ModelParallelResult r = run_model_parallel(one_stage(level, d, SimTime::zero()));
      CHECK(r.stages[0].data_bytes_per_iteration == Approx(2 * share * g).epsilon(1e-12));
    }
    // ZeRO-2 keeps only its shard of the gradients: a reduce-scatter after each of the m = 2 micro-batches' backward,
    // one gather after the step (DeepSpeed's (m + 1)(d - 1)/d x G).
    const ModelParallelResult zero2 = run_model_parallel(one_stage(ShardingLevel::gradients, d, SimTime::zero()));
    CHECK(zero2.stages[0].data_bytes_per_iteration == Approx(3 * share * g).epsilon(1e-12));
  }
}

TEST_CASE("ZeRO-2's reduce-scatters after the first micro-batch hide behind the second", "[model_parallel]") {
  // 5 ms a collective: the first micro-batch's two buckets run beside the second's 30 ms, the last bucket of the
  // second is exposed as under ZeRO-1, then the step (2 ms) and the gathers (2 x 5 ms) before the next forward.
  const ModelParallelResult zero1 = run_model_parallel(one_stage(ShardingLevel::optimizer, 4, SimTime::from_ms(5)));
  const ModelParallelResult zero2 = run_model_parallel(one_stage(ShardingLevel::gradients, 4, SimTime::from_ms(5)));
  CHECK(zero2.iteration_times[2] == zero1.iteration_times[2]);
  CHECK(zero2.iteration_times[2] == SimTime::from_ms(60 + 5 + 2 + 10));
  // Slower than a micro-batch can hide (25 ms each, 4 of them before the step): the stream sets the pace.
  const ModelParallelResult slow = run_model_parallel(one_stage(ShardingLevel::gradients, 4, SimTime::from_ms(25)));
  const ModelParallelResult slow1 = run_model_parallel(one_stage(ShardingLevel::optimizer, 4, SimTime::from_ms(25)));
  CHECK(slow.iteration_times[2] > slow1.iteration_times[2]);
}

TEST_CASE("with free collectives an iteration is the micro-batches' compute and the step", "[model_parallel]") {
  const ModelParallelResult none = run_model_parallel(one_stage(ShardingLevel::none, 4, SimTime::zero()));
  CHECK(none.iteration_times[1] == SimTime::from_ms(2 * 30 + 8));
  CHECK(none.exposed_data == SimTime::zero());
  // Sharded, each rank steps on 1/d of its parameters.
  const ModelParallelResult sharded = run_model_parallel(one_stage(ShardingLevel::optimizer, 4, SimTime::zero()));
  CHECK(sharded.iteration_times[1] == SimTime::from_ms(2 * 30 + 2));
}

TEST_CASE("a bucket ready halfway through the last backward hides behind it", "[model_parallel]") {
  const ModelParallelResult r = run_model_parallel(one_stage(ShardingLevel::none, 4, SimTime::from_ms(5)));
  // The first bucket's 5 ms run beside the last 10 ms of backward; the second, ready at its end, is exposed.
  CHECK(r.iteration_times[1] == SimTime::from_ms(60 + 5 + 8));
  CHECK(r.exposed_data == SimTime::from_ms(5));
  CHECK(r.stages[0].data_wait == SimTime::from_ms(5) * 3);
  // Longer than what is left of backward: the first bucket's excess shows too.
  const ModelParallelResult slow = run_model_parallel(one_stage(ShardingLevel::none, 4, SimTime::from_ms(15)));
  CHECK(slow.iteration_times[1] == SimTime::from_ms(60 - 10 + 30 + 8));
}

TEST_CASE("compute beside the data-parallel collectives runs (1 + s) times slower for as long as they overlap",
          "[model_parallel]") {
  // 5 ms buckets: the first runs from 50 to 55 ms beside the last backward (40 to 60), the second from 60 to 65 beside
  // nothing. At s = 0.5 the backward ends 2.5 ms later, at 62.5, still before the stream: the iteration keeps its 73
  // ms, 2.5 of them interference and 2.5 the wait; the rerun without the collectives keeps the interference, so the
  // data group exposes its wait only.
  ModelParallelSetup half = one_stage(ShardingLevel::none, 4, SimTime::from_ms(5));
  half.overlap_slowdown = 0.5;
  const ModelParallelResult r = run_model_parallel(half);
  CHECK(r.iteration_times[1] == SimTime::from_ms(73));
  CHECK(r.stages[0].interference == SimTime::from_us(2500) * 3);
  CHECK(r.stages[0].data_wait == SimTime::from_us(2500) * 3);
  CHECK(r.stages[0].bubble == SimTime::zero());
  CHECK(r.exposed_data == SimTime::from_us(2500));
  // At s = 2 the 5 ms beside it cost 10: the backward ends at 70, after the stream, and sets the pace.
  ModelParallelSetup twice = half;
  twice.overlap_slowdown = 2;
  const ModelParallelResult t = run_model_parallel(twice);
  CHECK(t.iteration_times[1] == SimTime::from_ms(78));
  CHECK(t.stages[0].interference == SimTime::from_ms(10) * 3);
  CHECK(t.stages[0].data_wait == SimTime::zero());
  CHECK(t.exposed_data == SimTime::zero());
  // 15 ms buckets overlap the backward's last 10 ms: 5 ms more at s = 0.5, hidden by the stream's 80 ms.
  ModelParallelSetup slow = one_stage(ShardingLevel::none, 4, SimTime::from_ms(15));
  slow.overlap_slowdown = 0.5;
  const ModelParallelResult w = run_model_parallel(slow);
  CHECK(w.iteration_times[1] == SimTime::from_ms(88));
  CHECK(w.stages[0].interference == SimTime::from_ms(5) * 3);
  // Without data parallelism nothing runs beside the compute.
  ModelParallelSetup alone = one_stage(ShardingLevel::none, 1, SimTime::from_ms(5));
  alone.overlap_slowdown = 0.5;
  CHECK(run_model_parallel(alone).stages[0].interference == SimTime::zero());
}

TEST_CASE("data-parallel collectives inside the passes are exposed and counted with the data group",
          "[model_parallel]") {
  // 1 ms at the end of each forward and 2 ms of each backward (an FP8 amax all-reduce over the stage), free buckets:
  // each iteration is 2 x (30 + 3) + 8 ms, and the rerun without data-parallel traffic loses all 6 ms of them.
  ModelParallelSetup s = one_stage(ShardingLevel::none, 4, SimTime::zero());
  s.work[0][0].forward_data = SimTime::from_ms(1);
  s.work[0][0].backward_data = SimTime::from_ms(2);
  const ModelParallelResult r = run_model_parallel(s);
  CHECK(r.iteration_times[1] == SimTime::from_ms(2 * 33 + 8));
  CHECK(r.stages[0].data_inline == SimTime::from_ms(6) * 3);
  CHECK(r.stages[0].bubble == SimTime::zero());
  CHECK(r.exposed_data == SimTime::from_ms(6));
  CHECK(r.exposed_tensor == SimTime::zero());
}

TEST_CASE("ZeRO-1's parameter gathers overlap the next iteration's forward per chunk", "[model_parallel]") {
  const ModelParallelResult r = run_model_parallel(one_stage(ShardingLevel::optimizer, 4, SimTime::from_ms(5)));
  // Reduce-scatters: the second exposed (5 ms); the step (2 ms); the gathers (2 x 5 ms) hold the next forward of
  // the one chunk, which needs all its parameters: iteration 2 onwards = 60 + 5 + 2 + 10.
  CHECK(r.iteration_times[2] == SimTime::from_ms(60 + 5 + 2 + 10));
  // Causally: 67 + 77 + 77 ms against 3 x 62 ms with the collectives free.
  CHECK(r.exposed_data == SimTime::from_ps(SimTime::from_ms(221 - 186).ps() / 3));
}

TEST_CASE("four equal stages of eight micro-batches: the bubble is 3/11", "[model_parallel]") {
  ModelParallelSetup s;
  s.stages = 4;
  s.micro_batches = 8;
  s.data = 1;
  ChunkWork w;
  w.forward_compute = SimTime::from_ms(1);
  w.backward_compute = SimTime::from_ms(2);
  s.work.assign(4, {w});
  s.optimizer_step.assign(4, SimTime::zero());
  s.iterations = 2;
  const ModelParallelResult r = run_model_parallel(s);
  CHECK(r.bubble_fraction == Approx(3.0 / 11.0).epsilon(1e-12));
  CHECK(r.iteration_times[0] == SimTime::from_ms(3) * 11);
  for (const auto& st : r.stages) {
    CHECK(st.compute == SimTime::from_ms(3) * 8 * 2);
    CHECK(st.compute + st.bubble == r.total);
  }
  // Transfers cost what the schedule's critical path crosses: 3 hops down and 3 back up per iteration at least.
  s.transfer = SimTime::from_us(100);
  const ModelParallelResult slowed = run_model_parallel(s);
  CHECK(slowed.exposed_pipeline >= SimTime::from_us(600));
  CHECK(slowed.exposed_tensor == SimTime::zero());
  // Each stage's waiting splits into the transfers' share (what the iteration loses to them, every iteration) and
  // the bubble, which stays the free-transfer run's: the stage's own work is the same, so its time still adds up.
  for (std::size_t d = 0; d < slowed.stages.size(); ++d) {
    const auto& st = slowed.stages[d];
    CHECK(st.pipeline == slowed.exposed_pipeline * 2);
    CHECK(st.bubble == r.stages[d].bubble);
    CHECK(st.compute + st.pipeline + st.bubble == slowed.total);
  }
}

TEST_CASE("tensor collectives inside the passes are exposed in full", "[model_parallel]") {
  ModelParallelSetup s = one_stage(ShardingLevel::none, 1, SimTime::zero());
  s.work[0][0].forward_tensor = SimTime::from_ms(1);
  s.work[0][0].backward_tensor = SimTime::from_ms(2);
  const ModelParallelResult r = run_model_parallel(s);
  CHECK(r.exposed_tensor == SimTime::from_ms(2 * 3));
  CHECK(r.stages[0].tensor == SimTime::from_ms(2 * 3) * 3);
}

TEST_CASE("each kind inside the passes and the recomputed forward are counted apart", "[model_parallel]") {
  // One stage, 2 micro-batches, 3 iterations: per micro-batch 1 ms of context gathers, 2 ms of expert all-to-alls,
  // and 10 of backward's 20 ms the forward run again. Each is its own time, and with the step and the data wait
  // (none: free collectives) they add up to the run.
  ModelParallelSetup s = one_stage(ShardingLevel::none, 1, SimTime::zero());
  ChunkWork& w = s.work[0][0];
  w.forward_context = SimTime::from_ms(1);
  w.forward_expert = SimTime::from_ms(1);
  w.backward_expert = SimTime::from_ms(1);
  w.backward_recompute = SimTime::from_ms(10);
  const ModelParallelResult r = run_model_parallel(s);
  const auto& st = r.stages[0];
  CHECK(st.context == SimTime::from_ms(1) * 6);
  CHECK(st.expert == SimTime::from_ms(2) * 6);
  CHECK(st.tensor == SimTime::zero());
  CHECK(st.recompute == SimTime::from_ms(10) * 6);
  CHECK(st.compute == SimTime::from_ms(30) * 6);
  CHECK(st.compute + st.context + st.expert + st.optimizer + st.data_wait + st.pipeline + st.bubble == r.total);
  CHECK(st.bubble == SimTime::zero());
}

TEST_CASE("ZeRO-3 under a pipeline gathers the shards before the first iteration, nothing after the last step",
          "[model_parallel]") {
  const ModelParallelResult full = run_model_parallel(one_stage(ShardingLevel::full, 4, SimTime::from_ms(5)));
  const ModelParallelResult zero1 = run_model_parallel(one_stage(ShardingLevel::optimizer, 4, SimTime::from_ms(5)));
  // The two 5 ms gathers before the first forward; then ZeRO-1's iterations, whose forward waits for the gathers
  // after the previous step.
  CHECK(full.iteration_times[0] == SimTime::from_ms(10 + 60 + 5 + 2));
  CHECK(zero1.iteration_times[0] == SimTime::from_ms(60 + 5 + 2));
  CHECK(full.iteration_times[1] == zero1.iteration_times[1]);
  CHECK(full.iteration_times[2] == zero1.iteration_times[2]);
  // One gather and one reduce-scatter of every unit per iteration, as ZeRO-1: 2 (d - 1)/d x G.
  CHECK(full.stages[0].data_bytes_per_iteration == Approx(2 * 0.75 * 150.0 * kMB).epsilon(1e-12));
}

TEST_CASE("the model-parallel setup is checked", "[model_parallel]") {
  ModelParallelSetup s = one_stage(ShardingLevel::none, 4, SimTime::zero());
  s.work.clear();
  CHECK_THROWS_WITH(run_model_parallel(s), Catch::Contains("per stage and chunk"));
}
