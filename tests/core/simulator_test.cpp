#include <catch2/catch.hpp>

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
