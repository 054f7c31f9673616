#pragma once
// EventQueue: the pending events of one simulation, ordered by (time, priority, sequence).
//
// A 4-ary min-heap over small, allocation-free records:
//   push   O(log n)      pop   O(log n)      top   O(1)
// The sequence number is the order of scheduling, so events at equal time and priority run in the order they
// were scheduled: equal times are deterministic, as in ns-3 and OMNeT++. Cancellation is the handler's job: a
// handler that reschedules bumps a generation counter it keeps, passes it in the payload, and ignores stale
// events. That keeps the record at 32 bytes and the queue free of lookup structures.
#include <cstdint>
#include <vector>

#include "syncsim/core/sim_time.hpp"

namespace syncsim {

class EventHandler;

// Lower runs first among events at the same time.
enum class EventPriority : std::uint8_t { first = 0, early = 64, normal = 128, late = 192, last = 255 };

struct Event {
  SimTime time;
  std::uint64_t order;  // priority in the top 8 bits, scheduling sequence in the low 56
  EventHandler* handler;
  std::uint64_t payload;

  EventPriority priority() const { return static_cast<EventPriority>(order >> 56); }
  std::uint64_t sequence() const { return order & ((std::uint64_t{1} << 56) - 1); }
};

class EventQueue {
 public:
  void push(SimTime time, EventPriority priority, EventHandler& handler, std::uint64_t payload);
  const Event& top() const { return heap_.front(); }
  Event pop();
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  void reserve(std::size_t n) { heap_.reserve(n); }
  std::uint64_t scheduled() const { return next_sequence_; }

 private:
  static bool before(const Event& a, const Event& b) {
    return a.time < b.time || (a.time == b.time && a.order < b.order);
  }
  std::vector<Event> heap_;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace syncsim
