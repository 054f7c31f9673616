#pragma once
// Simulator: the clock and event loop of one simulation run. No globals: every run owns its Simulator, so
// sweeps run simulations on threads and tests run in parallel.
//
//   syncsim::Simulator sim(/*seed=*/42);
//   struct Tick : syncsim::EventHandler {
//     void on_event(syncsim::Simulator& s, std::uint64_t n) override {
//       if (n > 0) s.schedule_in(syncsim::SimTime::from_us(1), *this, n - 1);
//     }
//   } tick;
//   sim.schedule_in(syncsim::SimTime::zero(), tick, 10);
//   sim.run();  // sim.now() == 10 us
#include <cstddef>
#include <cstdint>
#include <vector>

#include "syncsim/core/event_queue.hpp"
#include "syncsim/core/rng.hpp"
#include "syncsim/core/sim_time.hpp"

namespace syncsim {

class Simulator;

// Anything that receives events. The payload is the handler's own: an index, a packed id and generation, ...
class EventHandler {
 public:
  virtual ~EventHandler() = default;
  virtual void on_event(Simulator& sim, std::uint64_t payload) = 0;
};

// Something that must not be left waiting when the simulation runs out of events: a flow model with a flow still
// active, a collective whose ranks wait for a transfer nobody will send. Without the check such a run would end
// early and silently, reporting the time of its last event as if the work were done. run() and run_until() call
// every watcher when the queue empties (not after stop(), which ends a run on purpose); a watcher that finds work
// left fails an invariant naming it.
class QuiescenceCheck {
 public:
  virtual ~QuiescenceCheck() = default;
  virtual void on_quiescent(const Simulator& sim) const = 0;

 private:
  friend class Simulator;
  // Where the simulator keeps this watcher: unwatching is O(1) even with thousands of watchers (a layout's
  // collective runs one executor per channel and group, and each leaves as it finishes, in any order).
  mutable std::size_t watch_slot_ = kNotWatched;
  static constexpr std::size_t kNotWatched = static_cast<std::size_t>(-1);
};

class Simulator {
 public:
  explicit Simulator(std::uint64_t seed = 0) : rng_(seed) {}
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  SimTime now() const { return now_; }
  Rng& rng() { return rng_; }

  // Scheduling in the past is an engine bug and fails an invariant.
  void schedule_at(SimTime time, EventHandler& handler, std::uint64_t payload = 0,
                   EventPriority priority = EventPriority::normal);
  void schedule_in(SimTime delay, EventHandler& handler, std::uint64_t payload = 0,
                   EventPriority priority = EventPriority::normal) {
    schedule_at(now_ + delay, handler, payload, priority);
  }

  // Runs events until none is left, or until stop() is called from a handler.
  void run();
  // Runs events with time <= limit; the clock then reads `limit` if nothing stopped it earlier.
  void run_until(SimTime limit);
  void stop() { stopped_ = true; }

  std::uint64_t events_dispatched() const { return dispatched_; }
  std::size_t events_pending() const { return queue_.size(); }

  // Registers a check run when the queue empties; the watcher unregisters itself before it is destroyed.
  void watch(const QuiescenceCheck& check);
  void unwatch(const QuiescenceCheck& check);

 private:
  void dispatch_one();
  void check_quiescent() const;

  EventQueue queue_;
  SimTime now_ = SimTime::zero();
  Rng rng_;
  std::uint64_t dispatched_ = 0;
  bool stopped_ = false;
  // In the order they were registered; an unwatched slot is null until the next compaction.
  std::vector<const QuiescenceCheck*> watchers_;
  std::size_t live_watchers_ = 0;
};

}  // namespace syncsim
