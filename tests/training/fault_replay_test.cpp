// replay_faults: the DDP engine's fault accounting over whole iterations. On the hand-worked DDP setup
// (hand_worked_setup.hpp, overlap off) every iteration takes T = 21 ms, so replaying faults over ten 21 ms
// iterations must give what run_synchronous gives when it simulates every rank.
#include <catch2/catch.hpp>

#include <numeric>
#include <vector>

#include "hand_worked_setup.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/training/fault_replay.hpp"
#include "syncsim/training/synchronous_run.hpp"

using namespace syncsim;
using syncsim::test::hand_worked;
using syncsim::test::ms;

namespace {

SynchronousRunSetup four_ranks(CheckpointPolicy checkpoint, std::vector<FaultEvent> faults) {
  SynchronousRunSetup setup;
  setup.ddp = hand_worked(false);
  setup.ranks = 4;
  setup.iterations = 10;
  setup.detection_timeout = ms(30);
  setup.checkpoint = checkpoint;
  setup.faults = std::move(faults);
  return setup;
}

void check_same(const SynchronousRunSetup& setup) {
  const SynchronousRunResult simulated = run_synchronous(setup);
  const std::vector<SimTime> times(10, ms(21));
  const FaultReplay replayed = replay_faults(times, setup.faults, setup.checkpoint, setup.detection_timeout, 4);
  CHECK(replayed.total == simulated.total);
  CHECK(replayed.iteration_times == simulated.iteration_times);
  REQUIRE(replayed.faults.size() == simulated.faults.size());
  for (std::size_t i = 0; i < replayed.faults.size(); ++i) {
    const FaultOutcome& a = replayed.faults[i];
    const FaultOutcome& b = simulated.faults[i];
    CHECK(a.fault == b.fault);
    CHECK(a.at == b.at);
    CHECK(a.resumed == b.resumed);
    CHECK(a.iterations_lost == b.iterations_lost);
    CHECK(a.lost_work == b.lost_work);
    CHECK(a.downtime == b.downtime);
    CHECK(a.workers_after == b.workers_after);
  }
}

FaultEvent restart_at(SimTime at, std::int64_t rank) {
  return FaultEvent{at, {rank}, FaultPolicy::restart_from_checkpoint};
}

}  // namespace

TEST_CASE("one fault replayed: total = I T + (t - t_ckpt) + timeout + restart_cost", "[faults]") {
  // Checkpoints every 3 iterations (after iteration 2, at 63 ms); a fault at 100 ms, inside iteration 4: 37 ms of
  // work lost, detected at 130, resumed at 137: total = 10 x 21 + 37 + 30 + 7 = 284 ms.
  const std::vector<FaultEvent> faults{restart_at(ms(100), 2)};
  const FaultReplay r = replay_faults(std::vector<SimTime>(10, ms(21)), faults,
                                      {.every_iterations = 3, .every = std::nullopt, .restart_cost = ms(7)}, ms(30), 4);
  CHECK(r.total == ms(284));
  CHECK(std::accumulate(r.iteration_times.begin(), r.iteration_times.end(), SimTime::zero()) == r.total);
  REQUIRE(r.faults.size() == 1);
  CHECK(r.faults[0].iterations_lost == 2);
  CHECK(r.faults[0].lost_work == ms(37));
  CHECK(r.happened == std::vector<bool>{true});
}

TEST_CASE("replayed faults agree with the DDP engine's simulated ones", "[faults]") {
  const CheckpointPolicy every3{.every_iterations = 3, .every = std::nullopt, .restart_cost = ms(7)};
  const CheckpointPolicy every50ms{.every_iterations = std::nullopt, .every = ms(50), .restart_cost = ms(7)};
  const CheckpointPolicy none{.every_iterations = std::nullopt, .every = std::nullopt, .restart_cost = ms(7)};
  check_same(four_ranks(every3, {restart_at(ms(100), 2)}));
  check_same(four_ranks(every50ms, {restart_at(ms(100), 2)}));
  check_same(four_ranks(none, {restart_at(ms(100), 2)}));
  // At an iteration boundary (84 ms), and a second fault inside the first one's recovery.
  check_same(four_ranks(every3, {restart_at(ms(84), 1), restart_at(ms(120), 3)}));
  check_same(four_ranks(every50ms, {restart_at(ms(150), 0), restart_at(ms(40), 3)}));
}

TEST_CASE("a fault after the run's end does not happen", "[faults]") {
  const FaultReplay r =
      replay_faults(std::vector<SimTime>(3, ms(21)), {restart_at(ms(63), 0)},
                    {.every_iterations = std::nullopt, .every = std::nullopt, .restart_cost = ms(7)}, ms(30), 4);
  CHECK(r.total == ms(63));
  CHECK(r.faults.empty());
  CHECK(r.happened == std::vector<bool>{false});
}

TEST_CASE("replay refuses elastic recovery", "[faults]") {
  CHECK_THROWS_AS(replay_faults({ms(21)}, {FaultEvent{ms(1), {0}, FaultPolicy::elastic}}, {}, ms(30), 4), InputError);
}
