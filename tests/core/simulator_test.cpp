#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "syncsim/core/simulator.hpp"

using namespace syncsim;

namespace {
struct Countdown : EventHandler {
  std::vector<SimTime> seen;
  void on_event(Simulator& sim, std::uint64_t n) override {
    seen.push_back(sim.now());
    if (n > 0) sim.schedule_in(SimTime::from_us(1), *this, n - 1);
  }
};
struct Stopper : EventHandler {
  void on_event(Simulator& sim, std::uint64_t) override { sim.stop(); }
};
}  // namespace

TEST_CASE("the clock advances to each event and stops when none is left", "[simulator]") {
  Simulator sim(1);
  Countdown c;
  sim.schedule_in(SimTime::zero(), c, 10);
  sim.run();
  CHECK(sim.now() == SimTime::from_us(10));
  CHECK(c.seen.size() == 11);
  CHECK(sim.events_dispatched() == 11);
}

TEST_CASE("run_until stops at the limit and leaves later events pending", "[simulator]") {
  Simulator sim;
  Countdown c;
  sim.schedule_in(SimTime::zero(), c, 10);
  sim.run_until(SimTime::from_ns(3500));
  CHECK(c.seen.size() == 4);
  CHECK(sim.now() == SimTime::from_ns(3500));
  CHECK(sim.events_pending() == 1);
}

TEST_CASE("stop() from a handler ends run()", "[simulator]") {
  Simulator sim;
  Countdown c;
  Stopper s;
  sim.schedule_in(SimTime::zero(), c, 10);
  sim.schedule_at(SimTime::from_ns(2500), s);
  sim.run();
  CHECK(sim.now() == SimTime::from_ns(2500));
}

TEST_CASE("scheduling in the past is an invariant failure", "[simulator]") {
  Simulator sim;
  Countdown c;
  sim.schedule_in(SimTime::from_us(5), c, 0);
  sim.run();
  CHECK_THROWS_AS(sim.schedule_at(SimTime::from_us(1), c), std::logic_error);
}

namespace {
struct Watcher : QuiescenceCheck {
  int id = 0;
  std::vector<int>* calls = nullptr;
  void on_quiescent(const Simulator&) const override { calls->push_back(id); }
};
}  // namespace

TEST_CASE("watchers left in any order: the rest are checked, in the order they came", "[simulator]") {
  // A layout's collective has thousands of executors watching one simulator, each leaving as it finishes.
  Simulator sim;
  std::vector<int> calls;
  std::vector<Watcher> watchers(1000);
  std::vector<int> leaving;
  for (int i = 0; i < 1000; ++i) {
    watchers[static_cast<std::size_t>(i)].id = i;
    watchers[static_cast<std::size_t>(i)].calls = &calls;
    sim.watch(watchers[static_cast<std::size_t>(i)]);
    if (i % 3 != 0) leaving.push_back(i);
  }
  std::shuffle(leaving.begin(), leaving.end(), std::mt19937(5));  // the list compacts several times on the way
  for (const int i : leaving) sim.unwatch(watchers[static_cast<std::size_t>(i)]);
  sim.unwatch(watchers[1]);  // a second unwatch is harmless
  sim.unwatch(watchers[3]);
  sim.watch(watchers[3]);  // back, now last
  std::vector<int> expected;
  for (int i = 0; i < 1000; i += 3) {
    if (i != 3) expected.push_back(i);
  }
  expected.push_back(3);
  sim.run();
  CHECK(calls == expected);
}
