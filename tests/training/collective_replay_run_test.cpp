// run_collective_replay (collective_replay_run.hpp) on hand-worked sequences: every time is written here.
#include <catch2/catch.hpp>

#include "hand_worked_setup.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/training/collective_replay_run.hpp"

using namespace syncsim;
using syncsim::test::ms;

namespace {

// Two ranks: call 0 is an AllReduce over both (2 ms), call 1 rank 0's alone (1 ms), call 2 rank 1's alone (3 ms).
// Rank 0: 4 ms, call 0, 1 ms, call 1.  Rank 1: 2 ms, call 0, 1 ms, call 2.
CollectiveReplaySetup two_ranks(std::int64_t steps) {
  CollectiveReplaySetup s;
  s.ranks = 2;
  s.steps = steps;
  s.calls = {{{0, 1}, ms(2)}, {{0}, ms(1)}, {{1}, ms(3)}};
  s.rank_ops = {{{0, ms(4)}, {1, ms(1)}}, {{0, ms(2)}, {2, ms(1)}}};
  return s;
}

}  // namespace

TEST_CASE("alike ranks: a step is the sum of the gaps and the collectives' times", "[replay]") {
  CollectiveReplaySetup s;
  s.ranks = 2;
  s.steps = 3;
  s.calls = {{{0, 1}, ms(2)}, {{0, 1}, ms(5)}};
  s.rank_ops = {{{0, ms(10)}, {1, ms(1)}}, {{0, ms(10)}, {1, ms(1)}}};
  const CollectiveReplayResult r = run_collective_replay(s);
  CHECK(r.iteration_times == std::vector<SimTime>{ms(18), ms(18), ms(18)});
  CHECK(r.total == ms(54));
  CHECK(r.compute == std::vector<SimTime>{ms(33), ms(33)});
  CHECK(r.communication == std::vector<SimTime>{ms(21), ms(21)});
  CHECK(r.wait == std::vector<SimTime>{ms(0), ms(0)});
}

TEST_CASE("a collective starts when its last rank reaches it", "[replay]") {
  // Step 1: rank 1 reaches call 0 at 2, rank 0 at 4: call 0 runs 4-6 (rank 1 waits 2). Rank 0: 7-8 call 1, ends 8.
  // Rank 1: 7-10 call 2, ends 10. Step 2: rank 0 reaches call 0 at 12, rank 1 at 12: 12-14; rank 0 ends 15 + 1 = 16,
  // rank 1 at 15 + 3 = 18.
  const CollectiveReplayResult r = run_collective_replay(two_ranks(2));
  CHECK(r.iteration_times == std::vector<SimTime>{ms(10), ms(8)});
  CHECK(r.total == ms(18));
  CHECK(r.wait == std::vector<SimTime>{ms(0), ms(2)});
  CHECK(r.compute == std::vector<SimTime>{ms(10), ms(6)});
  CHECK(r.communication == std::vector<SimTime>{ms(6), ms(10)});
  // Every rank's time is accounted for up to its own end: rank 0 ends at 16, rank 1 at 18.
  CHECK(r.compute[0] + r.communication[0] + r.wait[0] == ms(16));
  CHECK(r.compute[1] + r.communication[1] + r.wait[1] == ms(18));
}

TEST_CASE("orders that deadlock and calls not held by their ranks are refused", "[replay]") {
  CollectiveReplaySetup s;
  s.ranks = 2;
  s.steps = 1;
  s.calls = {{{0, 1}, ms(1)}, {{0, 1}, ms(1)}};
  s.rank_ops = {{{0, ms(1)}, {1, ms(1)}}, {{1, ms(1)}, {0, ms(1)}}};
  CHECK_THROWS_WITH(run_collective_replay(s), Catch::StartsWith("the ranks' orders of collectives deadlock"));
  s.rank_ops = {{{0, ms(1)}, {1, ms(1)}}, {{1, ms(1)}}};
  CHECK_THROWS_AS(run_collective_replay(s), InputError);
}
