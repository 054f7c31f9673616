// run_synchronous's local SGD (sync_every = K) and time-varying AllReduce (collective_time_at, degraded links), on
// the hand-worked setup (hand_worked_setup.hpp): per iteration k(F + B) = 12 ms of compute, O = 1 ms, and the
// three buckets' AllReduce 5 + 1 + 2 = 8 ms.
#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include "hand_worked_setup.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/training/synchronous_run.hpp"

using namespace syncsim;
using syncsim::test::hand_worked;
using syncsim::test::ms;

namespace {

struct CollectiveLog : SynchronousRunObserver {
  struct Entry {
    std::int64_t iteration;
    std::size_t bucket;
    SimTime start;
    SimTime end;
    bool averaging;
  };
  std::vector<Entry> entries;
  void on_compute(std::int64_t, std::int64_t, std::int64_t, ComputePhase, SimTime, SimTime, double) override {}
  void on_bucket_sync(std::int64_t iteration, std::size_t bucket, const BucketSync&, const std::vector<SimTime>& steps,
                      const std::vector<std::int64_t>&, bool averaging) override {
    entries.push_back({iteration, bucket, steps.front(), steps.back(), averaging});
  }
  void on_optimizer(std::int64_t, std::int64_t, SimTime, SimTime) override {}
  void on_idle(std::int64_t, std::int64_t, SimTime, SimTime) override {}
  void on_fault(std::int64_t, FaultSpan, std::size_t, SimTime, SimTime) override {}
};

SynchronousRunSetup local_sgd(std::int64_t ranks, std::int64_t iterations, std::int64_t k) {
  SynchronousRunSetup setup;
  setup.ddp = hand_worked(true);  // overlap does not matter: local SGD sends no gradients
  setup.ranks = ranks;
  setup.iterations = iterations;
  setup.sync_every = k;
  return setup;
}

}  // namespace

TEST_CASE("local SGD: total = I (compute + optimizer) + floor(I / K) x averaging", "[local_sgd]") {
  // K = 3, I = 7: averaging after iterations 2 and 5, 8 ms each: total = 7 x 13 + 2 x 8 = 107 ms.
  SynchronousRunSetup setup = local_sgd(4, 7, 3);
  CollectiveLog log;
  const SynchronousRunResult run = run_synchronous(setup, &log);
  CHECK(run.total == ms(107));
  CHECK(run.iteration_times == std::vector<SimTime>{ms(13), ms(13), ms(21), ms(13), ms(13), ms(21), ms(13)});
  REQUIRE(log.entries.size() == 6);  // three buckets, twice; nothing in the other iterations
  const SimTime starts[] = {ms(39), ms(44), ms(45), ms(39 + 47), ms(44 + 47), ms(45 + 47)};
  for (std::size_t i = 0; i < 6; ++i) {
    CHECK(log.entries[i].averaging);
    CHECK(log.entries[i].iteration == (i < 3 ? 2 : 5));
    CHECK(log.entries[i].start == starts[i]);  // back to back, after the last optimizer step
  }
  for (const RankRunStats& rank : run.ranks) {
    CHECK(rank.compute == ms(7 * 12));
    CHECK(rank.optimizer == ms(7));
    CHECK(rank.idle == ms(16));  // the two averagings
    CHECK(rank.straggler_wait == SimTime::zero());
  }
  // K = 1 averages after every step; K > I never communicates.
  CHECK(run_synchronous(local_sgd(4, 7, 1)).total == ms(7 * 21));
  CHECK(run_synchronous(local_sgd(4, 7, 8)).total == ms(7 * 13));
}

TEST_CASE("local SGD: the averaging waits for the slowest rank", "[local_sgd]") {
  // Rank 1 computes 1.5x slower: 18 + 1 = 19 ms per iteration; the others wait 3 x 6 = 18 ms at each averaging.
  SynchronousRunSetup setup = local_sgd(4, 7, 3);
  StragglerSpec spec;
  spec.slow_ranks = {{1, 1.5}};
  setup.stragglers = StragglerModel(spec);
  const SynchronousRunResult run = run_synchronous(setup);
  CHECK(run.total == ms(7 * 19 + 2 * 8));
  CHECK(run.ranks[0].straggler_wait == ms(2 * 18));
  CHECK(run.ranks[1].straggler_wait == SimTime::zero());
  // Between averagings nobody waits: the last, unaveraged iteration ends on each rank's own clock.
  CHECK(run.ranks[0].idle == run.total - ms(7 * 13));
}

TEST_CASE("a collective takes the network state at its start: degraded inside the window, not outside",
          "[degraded_links]") {
  // 2 ranks, overlap off, 3 iterations of 21 ms; AllReduce time doubles for collectives starting in [21, 42) ms.
  // Iteration 1's buckets start at 33 (inside: 10 ms), 43 and 44 (outside: 1 and 2 ms): 12 + 13 + 1 = 26 ms.
  SynchronousRunSetup setup;
  setup.ddp = hand_worked(false);
  setup.ranks = 2;
  setup.iterations = 3;
  setup.collective_time_at = [](CollectiveOp, Bytes size, std::int64_t, SimTime start) {
    static const std::map<std::int64_t, SimTime> table{{100, ms(5)}, {200, ms(1)}, {300, ms(2)}};
    const bool degraded = start >= ms(21) && start < ms(42);
    return degraded ? table.at(size.value) * 2 : table.at(size.value);
  };
  CollectiveLog log;
  const SynchronousRunResult run = run_synchronous(setup, &log);
  CHECK(run.iteration_times == std::vector<SimTime>{ms(21), ms(26), ms(21)});
  CHECK(run.total == ms(68));
  REQUIRE(log.entries.size() == 9);
  CHECK(log.entries[3].start == ms(33));
  CHECK(log.entries[3].end == ms(43));  // still degraded after the window closed at 42
  CHECK(log.entries[4].end - log.entries[4].start == ms(1));
}

TEST_CASE("bad local SGD input is rejected", "[local_sgd]") {
  CHECK_THROWS_AS(run_synchronous(local_sgd(4, 7, -1)), InputError);
}
