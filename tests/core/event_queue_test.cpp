#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <tuple>
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

TEST_CASE("pushes and pops interleaved come out as a sorted reference says", "[event_queue]") {
  // The heap's shape (its arity) must not change the order: at every pop, the least (time, priority, sequence).
  NullHandler h;
  EventQueue q;
  std::vector<std::tuple<std::int64_t, int, std::uint64_t>> reference;  // (time, priority, payload = sequence)
  std::mt19937_64 gen(11);
  std::uint64_t pushed = 0;
  for (int round = 0; round < 5000; ++round) {
    for (std::uint64_t k = gen() % 4; k > 0; --k) {
      const auto time = static_cast<std::int64_t>(gen() % 50) + (round / 10);
      const EventPriority priority = gen() % 2 == 0 ? EventPriority::early : EventPriority::normal;
      q.push(SimTime::from_ps(time), priority, h, pushed);
      reference.emplace_back(time, static_cast<int>(priority), pushed++);
    }
    for (std::uint64_t k = gen() % 4; k > 0 && !q.empty(); --k) {
      const auto least = std::min_element(reference.begin(), reference.end());
      const Event e = q.pop();
      REQUIRE(e.payload == std::get<2>(*least));
      reference.erase(least);
    }
  }
  CHECK(q.size() == reference.size());
}
