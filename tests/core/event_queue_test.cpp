#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "syncsim/core/event_queue.hpp"
#include "syncsim/core/simulator.hpp"

using namespace syncsim;

namespace {
struct NullHandler : EventHandler {
  void on_event(Simulator&, std::uint64_t) override {}
};
}  // namespace

TEST_CASE("events come out ordered by (time, priority, sequence)", "[event_queue]") {
  NullHandler h;
  EventQueue q;
  q.push(SimTime::from_ps(20), EventPriority::normal, h, 1);
  q.push(SimTime::from_ps(10), EventPriority::late, h, 2);
  q.push(SimTime::from_ps(10), EventPriority::early, h, 3);
  q.push(SimTime::from_ps(10), EventPriority::late, h, 4);
  q.push(SimTime::from_ps(5), EventPriority::last, h, 5);
  std::vector<std::uint64_t> order;
  while (!q.empty()) order.push_back(q.pop().payload);
  CHECK(order == std::vector<std::uint64_t>{5, 3, 2, 4, 1});
}

TEST_CASE("a random mix pops in non-decreasing order with FIFO ties", "[event_queue]") {
  NullHandler h;
  EventQueue q;
  std::mt19937_64 gen(7);
  for (std::uint64_t i = 0; i < 20000; ++i) {
    q.push(SimTime::from_ps(static_cast<std::int64_t>(gen() % 100)), EventPriority::normal, h, i);
  }
  Event previous = q.pop();
  while (!q.empty()) {
    const Event e = q.pop();
    REQUIRE(previous.time <= e.time);
    if (previous.time == e.time) REQUIRE(previous.payload < e.payload);  // scheduling order among equals
    previous = e;
  }
}

TEST_CASE("priority and sequence survive packing into one word", "[event_queue]") {
  NullHandler h;
  EventQueue q;
  q.push(SimTime::zero(), EventPriority::late, h, 0);
  const Event e = q.pop();
  CHECK(e.priority() == EventPriority::late);
  CHECK(e.sequence() == 0);
}
