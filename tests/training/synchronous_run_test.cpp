// Synchronous DDP over N ranks with stragglers: persistent slow ranks and seeded per-iteration compute jitter.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <vector>

#include "hand_worked_setup.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/training/ddp_iteration.hpp"
#include "syncsim/training/straggler_model.hpp"
#include "syncsim/training/synchronous_run.hpp"

using namespace syncsim;
using syncsim::test::bucket;
using syncsim::test::hand_worked;
using syncsim::test::ms;

namespace {

SynchronousRunSetup run_setup(bool overlap, std::int64_t ranks, std::int64_t iterations, StragglerSpec spec = {}) {
  SynchronousRunSetup setup;
  setup.ddp = hand_worked(overlap);
  setup.ranks = ranks;
  setup.iterations = iterations;
  setup.stragglers = StragglerModel(spec);
  return setup;
}

StragglerSpec jitter(JitterKind kind, double sigma, std::uint64_t seed) {
  StragglerSpec spec;
  spec.jitter = kind;
  spec.sigma = sigma;
  spec.seed = seed;
  return spec;
}

}  // namespace

TEST_CASE("no stragglers: every iteration is exactly simulate_ddp_iteration's", "[sync_run]") {
  for (const bool overlap : {false, true}) {
    for (const std::int64_t k : {1, 3}) {
      for (const std::int64_t ranks : {1, 8}) {
        SynchronousRunSetup setup = run_setup(overlap, ranks, 5);
        setup.ddp.micro_batches = k;
        const IterationTimeline one = simulate_ddp_iteration(setup.ddp);
        const SynchronousRunResult run = run_synchronous(setup);
        REQUIRE(run.iteration_times.size() == 5);
        for (const SimTime t : run.iteration_times) CHECK(t == one.iteration);
        CHECK(run.total == one.iteration * 5);
        CHECK(run.mean == one.iteration);
        CHECK(run.p50 == one.iteration);
        CHECK(run.p99 == one.iteration);
        for (const RankRunStats& rank : run.ranks) {
          CHECK(rank.compute == one.compute * 5);
          CHECK(rank.optimizer == ms(5));
          CHECK(rank.idle == one.exposed_communication * 5);
          CHECK(rank.straggler_wait == SimTime::zero());
        }
      }
    }
  }
  // N = 1 with jitter: one rank waits for nobody, so each iteration is simulate_ddp_iteration of scaled layers.
  const SynchronousRunResult alone = run_synchronous(run_setup(false, 1, 3, jitter(JitterKind::lognormal, 0.2, 1)));
  const StragglerModel model(jitter(JitterKind::lognormal, 0.2, 1));
  for (std::int64_t i = 0; i < 3; ++i) {
    DdpSetup scaled = hand_worked(false);
    for (auto* times : {&scaled.layers.forward, &scaled.layers.backward}) {
      for (SimTime& t : *times) {
        t = SimTime::from_ps(std::llround(static_cast<double>(t.ps()) * model.factor(0, i)));
      }
    }
    CHECK(alone.iteration_times[static_cast<std::size_t>(i)] == simulate_ddp_iteration(scaled).iteration);
  }
  CHECK(alone.ranks[0].straggler_wait == SimTime::zero());
  CHECK(alone.ranks[0].idle == ms(8 * 3));  // overlap off: the rank is idle exactly during the AllReduces
}

TEST_CASE("one rank 1.5x slower, overlap off: iteration = 1.5 (F + B) + sum T + O, exactly", "[sync_run]") {
  // The slow rank's backward ends at 1.5 x 12 = 18 ms; with overlap off no rank launches an AllReduce before its
  // backward ends and the collective waits for the last rank, so the three AllReduces run back to back from
  // 18 ms (sum T = 8) and every optimizer step starts at 26: 1.5 (F + B) + sum T + O = 27 ms.
  StragglerSpec spec;
  spec.slow_ranks = {{2, 1.5}};
  const SynchronousRunResult run = run_synchronous(run_setup(false, 4, 10, spec));
  const SimTime normal_compute = ms(12);
  for (const SimTime t : run.iteration_times) {
    CHECK(t == ms(18) + ms(8) + ms(1));
    CHECK(t.ps() * 2 >= normal_compute.ps() * 3);  // >= 1.5 x a normal rank's compute
  }
  // Other ranks wait for the slow rank's extra compute, 0.5 x 12 = 6 ms per iteration.
  for (std::size_t r = 0; r < 4; ++r) {
    const RankRunStats& rank = run.ranks[r];
    CHECK(rank.compute == (r == 2 ? ms(18 * 10) : ms(12 * 10)));
    CHECK(rank.straggler_wait == (r == 2 ? SimTime::zero() : ms(6 * 10)));
    if (r != 2) CHECK(rank.idle - run.ranks[2].idle == ms(6 * 10));
  }
  CHECK(run.ranks[2].idle == ms(8 * 10));
}

TEST_CASE("one rank 1.5x slower, overlap on: iteration >= 1.5 (F + B) + O", "[sync_run]") {
  // Slow rank: forward 0-6, backward layer 3 6-9, 2 9-12, 1 12-15, 0 15-18. Bucket 0 joined by all at 9: 9-14;
  // bucket 1 at 15: 15-16; bucket 2 at 18: 18-20; optimizer 20-21.
  StragglerSpec spec;
  spec.slow_ranks = {{0, 1.5}};
  const SynchronousRunResult run = run_synchronous(run_setup(true, 8, 4, spec));
  for (const SimTime t : run.iteration_times) {
    CHECK(t >= ms(18) + ms(1));
    CHECK(t <= ms(18) + ms(8) + ms(1));  // never worse than overlap off
    CHECK(t == ms(21));
  }
  for (std::size_t r = 1; r < 8; ++r) CHECK(run.ranks[r].straggler_wait == ms(6 * 4));
}

TEST_CASE("jitter is deterministic and independent of the number of ranks and of query order", "[sync_run]") {
  for (const JitterKind kind : {JitterKind::lognormal, JitterKind::normal}) {
    const SynchronousRunResult a = run_synchronous(run_setup(true, 16, 50, jitter(kind, 0.1, 42)));
    const SynchronousRunResult b = run_synchronous(run_setup(true, 16, 50, jitter(kind, 0.1, 42)));
    const SynchronousRunResult c = run_synchronous(run_setup(true, 16, 50, jitter(kind, 0.1, 43)));
    CHECK(a.iteration_times == b.iteration_times);
    for (std::size_t r = 0; r < 16; ++r) {
      CHECK(a.ranks[r].compute == b.ranks[r].compute);
      CHECK(a.ranks[r].idle == b.ranks[r].idle);
    }
    CHECK(a.iteration_times != c.iteration_times);
  }
  const StragglerModel model(jitter(JitterKind::lognormal, 0.3, 7));
  const double first = model.factor(5, 9);
  for (std::int64_t r = 0; r < 10; ++r) {
    for (std::int64_t i = 20; i-- > 0;) (void)model.factor(r, i);
  }
  CHECK(model.factor(5, 9) == first);
  CHECK(model.factor(5, 9) != model.factor(9, 5));
  CHECK(StragglerModel(jitter(JitterKind::lognormal, 0.3, 7)).factor(5, 9) == first);
}

TEST_CASE("lognormal jitter has mean factor 1, normal jitter is clamped positive", "[sync_run]") {
  // sigma = 0.5: the factor's standard deviation is sqrt(exp(0.25) - 1) = 0.53, so the mean of 100,000 draws has a
  // standard error of 0.0017; the bound 0.01 is about 6 standard errors.
  const StragglerModel lognormal(jitter(JitterKind::lognormal, 0.5, 3));
  const StragglerModel normal(jitter(JitterKind::normal, 0.1, 3));
  StragglerSpec wide = jitter(JitterKind::normal, 2.0, 3);
  wide.normal_min_factor = 0.05;
  const StragglerModel clamped(wide);
  double sum_log = 0;
  double sum_normal = 0;
  double min_clamped = 1;
  const int draws = 100'000;
  for (int d = 0; d < draws; ++d) {
    sum_log += lognormal.factor(d % 100, d / 100);
    sum_normal += normal.factor(d % 100, d / 100);
    min_clamped = std::min(min_clamped, clamped.factor(d % 100, d / 100));
  }
  CHECK(std::abs(sum_log / draws - 1) < 0.01);
  CHECK(std::abs(sum_normal / draws - 1) < 0.002);  // standard error 0.0003
  CHECK(min_clamped == 0.05);
  CHECK(StragglerModel().factor(3, 4) == 1.0);
}

TEST_CASE("mean iteration grows with sigma: the collective waits for the max of N draws", "[sync_run]") {
  const SimTime nominal = simulate_ddp_iteration(hand_worked(true)).iteration;
  SimTime previous = nominal;
  for (const double sigma : {0.05, 0.1, 0.2, 0.4}) {
    const SynchronousRunResult run =
        run_synchronous(run_setup(true, 16, 200, jitter(JitterKind::lognormal, sigma, 11)));
    CHECK(run.mean > previous);
    CHECK(run.p99 >= run.p50);
    previous = run.mean;
  }
  const SynchronousRunResult wide = run_synchronous(run_setup(true, 64, 200, jitter(JitterKind::lognormal, 0.1, 5)));
  CHECK(wide.mean > nominal);
  CHECK(wide.p50 > nominal);
}

TEST_CASE("percentiles are nearest-rank, throughput is global batch x I / total", "[sync_run]") {
  SynchronousRunResult result;
  result.iteration_times = {ms(4), ms(1), ms(3), ms(2)};
  result.total = ms(10);
  CHECK(result.percentile(50) == ms(2));
  CHECK(result.percentile(75) == ms(3));
  CHECK(result.percentile(99) == ms(4));
  CHECK(result.percentile(1) == ms(1));
  CHECK(result.samples_per_second(256) == Approx(256.0 * 4 / 0.010));
  CHECK_THROWS_AS(result.percentile(0), InputError);
}

TEST_CASE("bad synchronous-run input is rejected", "[sync_run]") {
  CHECK_THROWS_AS(run_synchronous(run_setup(true, 0, 1)), InputError);
  CHECK_THROWS_AS(run_synchronous(run_setup(true, 2, 0)), InputError);
  StragglerSpec spec;
  spec.slow_ranks = {{4, 1.5}};
  CHECK_THROWS_AS(run_synchronous(run_setup(true, 4, 1, spec)), InputError);
  spec.slow_ranks = {{1, 0.0}};
  CHECK_THROWS_AS(StragglerModel(spec), InputError);
  CHECK_THROWS_AS(StragglerModel(jitter(JitterKind::normal, -0.1, 1)), InputError);
}

TEST_CASE("backward beside an AllReduce runs (1 + s) times slower: the hand-worked iteration", "[sync_run]") {
  // s = 0.5, 2 ranks. Layer 3 ends at 6 and bucket {3} starts the synchronization there, [6, 11): every layer after
  // it runs 1.5 times slower, layers 2, 1 and 0 (2 ms each) to 9, 12 and 15, the gap between buckets included.
  // Bucket {2, 1} runs [12, 13), bucket {0} [15, 17), the step [17, 18). Without: 15 ms.
  SynchronousRunSetup setup = run_setup(true, 2, 3);
  setup.ddp.overlap_slowdown = 0.5;
  const SynchronousRunResult run = run_synchronous(setup);
  for (const SimTime t : run.iteration_times) CHECK(t == ms(18));
  for (const RankRunStats& rank : run.ranks) {
    CHECK(rank.interference == ms(3) * 3);  // 15 - 12 per iteration
    CHECK(rank.compute == ms(12) * 3);      // the model's compute stays F + B
    CHECK(rank.idle == ms(2) * 3);          // 17 - 15: the exposed communication
  }
  // Overlap off: nothing runs beside backward, nothing slows.
  SynchronousRunSetup serial = run_setup(false, 2, 3);
  serial.ddp.overlap_slowdown = 0.5;
  CHECK(run_synchronous(serial).total == run_synchronous(run_setup(false, 2, 3)).total);
}

TEST_CASE("the framework's overhead follows backward on the compute stream, AllReduces run on beside it",
          "[sync_run]") {
  // Backward ends at 12, the last bucket at 14; 3 ms of bookkeeping to 15 hide it: the step [15, 16).
  SynchronousRunSetup setup = run_setup(true, 2, 4);
  setup.ddp.framework_overhead = ms(3);
  const SynchronousRunResult run = run_synchronous(setup);
  for (const SimTime t : run.iteration_times) CHECK(t == ms(16));
  for (const RankRunStats& rank : run.ranks) {
    CHECK(rank.framework == ms(3) * 4);
    CHECK(rank.idle == ms(3) * 4);  // all of it the overhead: no communication left exposed
    CHECK(rank.straggler_wait == SimTime::zero());
  }
  // Local SGD: the overhead before every step.
  SynchronousRunSetup local = run_setup(true, 2, 4);
  local.sync_every = 2;
  const SimTime without = run_synchronous(local).total;
  local.ddp.framework_overhead = ms(3);
  CHECK(run_synchronous(local).total == without + ms(3) * 4);
}
