#include "syncsim/core/simulator.hpp"

#include <vector>

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
  if (!stopped_) check_quiescent();
}

void Simulator::run_until(SimTime limit) {
  stopped_ = false;
  while (!stopped_ && !queue_.empty() && queue_.top().time <= limit) dispatch_one();
  if (!stopped_ && queue_.empty()) check_quiescent();
  if (!stopped_ && now_ < limit) now_ = limit;
}

void Simulator::watch(const QuiescenceCheck& check) {
  check.watch_slot_ = watchers_.size();
  watchers_.push_back(&check);
  ++live_watchers_;
}

void Simulator::unwatch(const QuiescenceCheck& check) {
  const std::size_t slot = check.watch_slot_;
  if (slot >= watchers_.size() || watchers_[slot] != &check) return;  // not watched here
  watchers_[slot] = nullptr;
  check.watch_slot_ = QuiescenceCheck::kNotWatched;
  --live_watchers_;
  // Compact once the holes outnumber the watchers, keeping the order: amortised O(1) per unwatch.
  if (2 * live_watchers_ >= watchers_.size()) return;
  std::size_t kept = 0;
  for (const QuiescenceCheck* watcher : watchers_) {
    if (watcher == nullptr) continue;
    watcher->watch_slot_ = kept;
    watchers_[kept++] = watcher;
  }
  watchers_.resize(kept);
}

void Simulator::check_quiescent() const {
  // A copy: a failing check throws, and nothing may unregister while the list is walked.
  const std::vector<const QuiescenceCheck*> watchers = watchers_;
  for (const QuiescenceCheck* check : watchers) {
    if (check != nullptr) check->on_quiescent(*this);
  }
}

}  // namespace syncsim
