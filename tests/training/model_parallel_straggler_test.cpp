// Stragglers in the model-parallel engine: a slow GPU slows its tensor group, hence its pipeline stage in its
// replica; the stage's data-parallel reduction waits for that replica; replicas alike stay one timeline.
#include <catch2/catch.hpp>

#include "syncsim/training/model_parallel_run.hpp"
#include "syncsim/training/replica_classes.hpp"

using namespace syncsim;

namespace {

constexpr std::int64_t kTensor = 8;
constexpr std::int64_t kStages = 16;
constexpr std::int64_t kData = 128;
constexpr std::int64_t kMicroBatches = 16;

// TP 8 x PP 16 x DP 128 (16,384 GPUs), 1F1B, every chunk f = 1 ms forward and b = 2 ms backward, free transfers
// and collectives, no optimizer time.
ModelParallelSetup llama_like(StragglerModel stragglers) {
  ModelParallelSetup s;
  s.stages = kStages;
  s.micro_batches = kMicroBatches;
  s.data = kData;
  s.group = kTensor;
  ChunkWork w;
  w.forward_compute = SimTime::from_ms(1);
  w.backward_compute = SimTime::from_ms(2);
  w.units = {{Bytes{1'000'000}, 1.0}};
  s.work.assign(kStages, {w});
  s.optimizer_step.assign(kStages, SimTime::zero());
  s.iterations = 2;
  s.data_collective = [](CollectiveOp, Bytes, bool) { return SimTime::zero(); };
  s.stragglers = std::move(stragglers);
  return s;
}

StragglerModel slow(std::int64_t rank, double factor) {
  StragglerSpec spec;
  spec.slow_ranks = {{rank, factor}};
  return StragglerModel(spec);
}

// Rank t + T (d + D p): member t of replica d's stage p (Megatron's order, rank_layout.hpp).
std::int64_t rank_of(std::int64_t t, std::int64_t replica, std::int64_t stage) {
  return t + kTensor * (replica + kData * stage);
}

}  // namespace

TEST_CASE("one GPU 20% slow in TP 8 x PP 16 x DP 128: the iteration grows by its stage's 1F1B pairs x 0.2 (f + b)",
          "[stragglers]") {
  // 1F1B with equal stages and free transfers: T = (m + p - 1)(f + b) = 31 x 3 ms = 93 ms. Stage s runs
  // w = min(m, p - 1 - s) warm-up forwards, then m - w forward-backward pairs back to back, then w backwards. A
  // slow GPU makes its tensor group, so its stage in its replica, take x (f + b) per micro-batch. The warm-up's
  // extra time hides in the wait for the first backward, which the stage has anyway; each steady pair is on the
  // critical path (and with no steady pair, one micro-batch's forward and backward still are):
  //   T' - T = (x - 1)(f + b) max(1, m - (p - 1 - s))
  // The last stage (s = 15, no warm-up): 0.2 x 3 ms x 16 = 9.6 ms; stage 7: 0.6 ms x 8 = 4.8 ms; stage 0: 0.6 ms.
  // The stage's data-parallel reduction waits for the slow replica, so the whole job's iteration is T'.
  const ModelParallelResult base = run_model_parallel(llama_like({}));
  REQUIRE(base.iteration_times[1] == SimTime::from_ms(93));
  for (std::int64_t stage = 0; stage < kStages; ++stage) {
    const ModelParallelResult slowed = run_model_parallel(llama_like(slow(rank_of(3, 42, stage), 1.2)));
    const std::int64_t pairs = std::max<std::int64_t>(1, kMicroBatches - (kStages - 1 - stage));
    CAPTURE(stage);
    CHECK(slowed.iteration_times[1] - base.iteration_times[1] == SimTime::from_us(600) * pairs);
    CHECK(slowed.replica_classes == 2);
  }
}

TEST_CASE("a rank at factor 1 leaves the run exactly as without stragglers", "[stragglers]") {
  const ModelParallelResult base = run_model_parallel(llama_like({}));
  const ModelParallelResult same = run_model_parallel(llama_like(slow(5, 1.0)));
  CHECK(same.iteration_times == base.iteration_times);
  CHECK(same.stages[3].bubble == base.stages[3].bubble);
  CHECK(same.replica_classes == 1);
}

TEST_CASE("the fast replicas wait for the slow one: their straggler wait is the slow stage's extra", "[stragglers]") {
  // One stage, m = 16, 4 replicas; replica 1's group computes 1.5 x slower: 48 ms of passes instead of 48 x 1.5 =
  // 72. The other 3 wait 24 ms per iteration for it at the reduction: a mean of 3/4 x 24 = 18 ms; the slow
  // replica's compute is 72 ms, the mean compute (3 x 48 + 72) / 4 = 54 ms.
  ModelParallelSetup s = llama_like(slow(rank_of(0, 1, 0), 1.5));
  s.stages = 1;
  s.data = 4;
  s.work.resize(1);
  s.optimizer_step.resize(1);
  s.iterations = 1;
  const ModelParallelResult r = run_model_parallel(s);
  CHECK(r.iteration_times[0] == SimTime::from_ms(72));
  CHECK(r.stages[0].straggler_wait == SimTime::from_ms(18));
  CHECK(r.stages[0].compute == SimTime::from_ms(54));
  // The times sum to the total: compute + waiting + bubble.
  CHECK(r.stages[0].compute + r.stages[0].straggler_wait + r.stages[0].bubble + r.stages[0].pipeline == r.total);
}

TEST_CASE("jitter makes the replicas differ, deterministically per seed", "[stragglers]") {
  StragglerSpec spec;
  spec.jitter = JitterKind::lognormal;
  spec.sigma = 0.05;
  spec.seed = 7;
  const ModelParallelResult a = run_model_parallel(llama_like(StragglerModel(spec)));
  const ModelParallelResult b = run_model_parallel(llama_like(StragglerModel(spec)));
  CHECK(a.iteration_times == b.iteration_times);
  CHECK(a.replica_classes == kData);
  // Every collective waits for the slowest replica, whose slowest stage's factor is above 1: slower than nominal.
  CHECK(a.iteration_times[1] > SimTime::from_ms(93));
}

TEST_CASE("replica classes: a group computes at its slowest member's factor", "[stragglers]") {
  StragglerSpec spec;
  spec.slow_ranks = {{rank_of(1, 2, 3), 1.3}, {rank_of(5, 2, 3), 1.1}, {rank_of(0, 9, 0), 0.5}};
  const std::vector<ReplicaClass> classes = replica_classes(StragglerModel(spec), kTensor, kData, kStages, 0);
  REQUIRE(classes.size() == 2);  // a fast GPU waits for its group's others at factor 1
  CHECK(classes[0].replicas == kData - 1);
  CHECK(classes[1].replicas == 1);
  CHECK(classes[1].stage_factors[3] == 1.3);
  CHECK(group_factor(StragglerModel(spec), kTensor, rank_of(6, 2, 3), 0) == 1.3);
  CHECK(slowest_factor(StragglerModel(spec), kTensor * kData * kStages, 0) == 1.3);
}
