// run_synchronous with faults: restart from a checkpoint and elastic recovery, on the hand-worked DDP setup
// (hand_worked_setup.hpp) with overlap off, where every iteration takes exactly T = k(F + B) + sum T_j + O =
// 12 + 8 + 1 = 21 ms on 4 ranks: collectives of iteration i run over [21i + 12, 21i + 20] ms.
#include <catch2/catch.hpp>

#include <map>
#include <numeric>
#include <vector>

#include "hand_worked_setup.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/training/synchronous_run.hpp"

using namespace syncsim;
using syncsim::test::hand_worked;
using syncsim::test::ms;

namespace {

SynchronousRunSetup four_ranks(std::int64_t iterations) {
  SynchronousRunSetup setup;
  setup.ddp = hand_worked(false);
  setup.ranks = 4;
  setup.iterations = iterations;
  setup.detection_timeout = ms(30);
  setup.checkpoint.restart_cost = ms(7);
  return setup;
}

FaultEvent fault(SimTime at, std::vector<std::int64_t> ranks, FaultPolicy recovery) {
  return FaultEvent{at, std::move(ranks), recovery};
}

// Counts what the engine placed: collectives by their rank count, and fault spans.
struct Recorder : SynchronousRunObserver {
  std::vector<std::pair<SimTime, std::size_t>> allreduce;                     // start, ranks
  std::map<std::int64_t, std::vector<std::pair<FaultSpan, SimTime>>> faults;  // rank -> (span, end)
  void on_compute(std::int64_t, std::int64_t, std::int64_t, ComputePhase, SimTime, SimTime, double) override {}
  void on_bucket_sync(std::int64_t, std::size_t, const BucketSync&, const std::vector<SimTime>& steps,
                      const std::vector<std::int64_t>& ranks, bool) override {
    allreduce.emplace_back(steps.front(), ranks.size());
  }
  void on_optimizer(std::int64_t, std::int64_t, SimTime, SimTime) override {}
  void on_idle(std::int64_t, std::int64_t, SimTime, SimTime) override {}
  void on_fault(std::int64_t rank, FaultSpan span, std::size_t, SimTime, SimTime end) override {
    faults[rank].emplace_back(span, end);
  }
};

SimTime sum(const std::vector<SimTime>& times) {
  return std::accumulate(times.begin(), times.end(), SimTime::zero());
}

}  // namespace

TEST_CASE("restart from a checkpoint: total = I T + (t - t_ckpt) + timeout + restart_cost", "[faults]") {
  // Checkpoints every 3 iterations: after iteration 2 at 63 ms. Rank 2 fails at t = 100 ms, inside iteration 4
  // (84..105 ms): iterations 3 and 4 are lost, 37 ms of work since the checkpoint; detected at 130, resumed at
  // 137, then iterations 3..9 again: total = 137 + 7 x 21 = 284 = 10 x 21 + 37 + 30 + 7.
  SynchronousRunSetup setup = four_ranks(10);
  setup.checkpoint.every_iterations = 3;
  setup.faults = {fault(ms(100), {2}, FaultPolicy::restart_from_checkpoint)};
  Recorder recorder;
  const SynchronousRunResult run = run_synchronous(setup, &recorder);

  CHECK(run.total == ms(284));
  CHECK(sum(run.iteration_times) == run.total);
  CHECK(run.iteration_times[2] == ms(21));
  CHECK(run.iteration_times[3] == ms(137 + 21 - 63));  // its last run, from iteration 2's end
  CHECK(run.rank_iterations == 40);
  REQUIRE(run.faults.size() == 1);
  const FaultOutcome& f = run.faults[0];
  CHECK(f.at == ms(100));
  CHECK(f.detected == ms(130));
  CHECK(f.resumed == ms(137));
  CHECK(f.iterations_lost == 2);
  CHECK(f.lost_work == ms(37));
  CHECK(f.downtime == ms(37));
  CHECK(f.workers_after == 4);
  for (std::size_t r = 0; r < 4; ++r) {
    // Compute: iterations 0-3, the aborted 4 (its backward ended at 96 < 100), and 3-9 again: 12 x 12 ms.
    CHECK(run.ranks[r].compute == ms(144));
    CHECK(run.ranks[r].optimizer == ms(11));
    CHECK(run.ranks[r].fault_wait == ms(37));  // down or stalled 100..130, restarting 130..137
    CHECK(run.ranks[r].idle == run.total - ms(155));
  }
  // Rank 2 is down until the detection; the others stall (their backward ended at 96, the fault came at 100).
  REQUIRE(recorder.faults[2].size() == 2);
  CHECK(recorder.faults[2][0] == std::pair{SynchronousRunObserver::FaultSpan::down, ms(130)});
  CHECK(recorder.faults[2][1] == std::pair{SynchronousRunObserver::FaultSpan::restart, ms(137)});
  CHECK(recorder.faults[0][0] == std::pair{SynchronousRunObserver::FaultSpan::stalled, ms(130)});
  // The aborted iteration's collectives (96..104) had not ended at 100: none of them is recorded.
  for (const auto& [start, ranks] : recorder.allreduce) CHECK((start < ms(84) || start >= ms(137)));
}

TEST_CASE("restart without checkpoints loses everything, a time interval checkpoints at the next iteration end",
          "[faults]") {
  SynchronousRunSetup setup = four_ranks(10);
  setup.faults = {fault(ms(100), {1}, FaultPolicy::restart_from_checkpoint)};
  SECTION("none: from the start") {
    const SynchronousRunResult run = run_synchronous(setup);
    REQUIRE(run.faults.size() == 1);
    CHECK(run.faults[0].iterations_lost == 5);
    CHECK(run.faults[0].lost_work == ms(100));
    CHECK(run.total == ms(10 * 21 + 100 + 30 + 7));
  }
  SECTION("every 50 ms: the first iteration end >= 50 ms is 63 ms") {
    setup.checkpoint.every = ms(50);
    const SynchronousRunResult run = run_synchronous(setup);
    REQUIRE(run.faults.size() == 1);
    CHECK(run.faults[0].iterations_lost == 2);
    CHECK(run.faults[0].lost_work == ms(37));
    CHECK(run.total == ms(284));
  }
  SECTION("a failure exactly at an iteration's start loses no part of it") {
    setup.checkpoint.every_iterations = 2;
    setup.faults[0].at = ms(84);  // iteration 4 starts; the checkpoint after iteration 3 is at 84 too
    const SynchronousRunResult run = run_synchronous(setup);
    REQUIRE(run.faults.size() == 1);
    CHECK(run.faults[0].iterations_lost == 0);
    CHECK(run.faults[0].lost_work == SimTime::zero());
    CHECK(run.total == ms(10 * 21 + 30 + 7));
  }
  SECTION("a fault after the last iteration does not happen") {
    setup.faults[0].at = ms(210);
    const SynchronousRunResult run = run_synchronous(setup);
    CHECK(run.faults.empty());
    CHECK(run.total == ms(210));
  }
}

TEST_CASE("a second failure during the recovery takes effect at the resumption", "[faults]") {
  SynchronousRunSetup setup = four_ranks(10);
  setup.checkpoint.every_iterations = 3;
  setup.faults = {fault(ms(100), {2}, FaultPolicy::restart_from_checkpoint),
                  fault(ms(110), {0}, FaultPolicy::restart_from_checkpoint)};
  const SynchronousRunResult run = run_synchronous(setup);
  REQUIRE(run.faults.size() == 2);
  CHECK(run.faults[1].at == ms(137));
  CHECK(run.faults[1].lost_work == SimTime::zero());  // nothing done since the resumption
  CHECK(run.faults[1].iterations_lost == 0);
  CHECK(run.faults[1].resumed == ms(137 + 37));
  CHECK(run.total == ms(284 + 37));
}

TEST_CASE("elastic: the survivors resume with the iteration in progress, AllReduce over N - 1 ranks", "[faults]") {
  // On 3 ranks the buckets' AllReduce takes 3, 1 and 1 ms (sum 5): an iteration is 12 + 5 + 1 = 18 ms.
  SynchronousRunSetup setup = four_ranks(10);
  setup.collective_time_at = [](CollectiveOp, Bytes size, std::int64_t ranks, SimTime) {
    static const std::map<std::int64_t, SimTime> four{{100, ms(5)}, {200, ms(1)}, {300, ms(2)}};
    static const std::map<std::int64_t, SimTime> three{{100, ms(3)}, {200, ms(1)}, {300, ms(1)}};
    return (ranks == 4 ? four : three).at(size.value);
  };
  setup.checkpoint.every_iterations = 3;  // not used by elastic
  setup.faults = {fault(ms(100), {3}, FaultPolicy::elastic)};
  Recorder recorder;
  const SynchronousRunResult run = run_synchronous(setup, &recorder);

  // Rank 3 fails at 100 ms in iteration 4 (started at 84): 16 ms lost; resumed at 137 with iteration 4, then
  // iterations 4..9 at 18 ms: total = 137 + 6 x 18 = 245.
  CHECK(run.total == ms(245));
  CHECK(run.rank_iterations == 4 * 4 + 6 * 3);  // the global batch shrinks to 3 workers' for 6 iterations
  REQUIRE(run.faults.size() == 1);
  CHECK(run.faults[0].iterations_lost == 1);
  CHECK(run.faults[0].lost_work == ms(16));
  CHECK(run.faults[0].downtime == ms(37));
  CHECK(run.faults[0].workers_after == 3);
  CHECK(run.ranks[3].compute == ms(5 * 12));
  CHECK(run.ranks[3].fault_wait == run.total - ms(100));  // down, then gone
  CHECK(run.ranks[0].compute == ms(11 * 12));
  std::size_t after = 0;
  for (const auto& [start, ranks] : recorder.allreduce) {
    CHECK(ranks == (start < ms(100) ? 4u : 3u));
    after += start > ms(137) ? 1 : 0;
  }
  CHECK(after == 6 * 3);                  // three buckets per iteration after the recovery
  CHECK(recorder.faults[3].size() == 1);  // down; no restart for a worker that left
}

TEST_CASE("bad fault input is rejected", "[faults]") {
  SynchronousRunSetup setup = four_ranks(3);
  setup.faults = {fault(ms(10), {4}, FaultPolicy::restart_from_checkpoint)};
  CHECK_THROWS_AS(run_synchronous(setup), InputError);
  setup.faults = {fault(ms(10), {1}, FaultPolicy::elastic), fault(ms(50), {1}, FaultPolicy::elastic)};
  CHECK_THROWS_AS(run_synchronous(setup), InputError);  // rank 1 already left
  setup.ranks = 1;
  setup.faults = {fault(ms(10), {0}, FaultPolicy::elastic)};
  CHECK_THROWS_AS(run_synchronous(setup), InputError);  // nobody left
}
