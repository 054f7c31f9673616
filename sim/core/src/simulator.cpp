#include "syncsim/core/simulator.hpp"

#include "syncsim/core/input_error.hpp"

namespace syncsim {

void Simulator::schedule_at(SimTime time, EventHandler& handler, std::uint64_t payload, EventPriority priority) {
  SYNCSIM_INVARIANT(time >= now_, "event scheduled in the past");
  queue_.push(time, priority, handler, payload);
}

void Simulator::dispatch_one() {
  const Event event = queue_.pop();
  SYNCSIM_INVARIANT(event.time >= now_, "event times must not decrease");
  now_ = event.time;
  ++dispatched_;
  event.handler->on_event(*this, event.payload);
}

void Simulator::run() {
  stopped_ = false;
  while (!stopped_ && !queue_.empty()) dispatch_one();
}

void Simulator::run_until(SimTime limit) {
  stopped_ = false;
  while (!stopped_ && !queue_.empty() && queue_.top().time <= limit) dispatch_one();
  if (!stopped_ && now_ < limit) now_ = limit;
}

}  // namespace syncsim
