#include "syncsim/training/fault_replay.hpp"

#include <algorithm>
#include <numeric>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

void check(const std::vector<SimTime>& times, const std::vector<FaultEvent>& faults) {
  if (times.empty()) throw InputError("fault replay: no iterations");
  for (const SimTime t : times) {
    if (t < SimTime::zero()) throw InputError("fault replay: a negative iteration time");
  }
  for (const FaultEvent& f : faults) {
    if (f.recovery != FaultPolicy::restart_from_checkpoint) {
      throw InputError("fault replay: only restart_from_checkpoint is replayed over whole iterations");
    }
  }
}

}  // namespace

FaultReplay replay_faults(const std::vector<SimTime>& iteration_times, const std::vector<FaultEvent>& faults,
                          const CheckpointPolicy& checkpoint, SimTime detection_timeout, std::int64_t workers) {
  check(iteration_times, faults);
  std::vector<std::size_t> order(faults.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return faults[a].at < faults[b].at; });
  const auto iterations = static_cast<std::int64_t>(iteration_times.size());
  FaultReplay out;
  out.happened.assign(faults.size(), false);
  std::vector<SimTime> end_of(iteration_times.size());
  std::size_t next_fault = 0;
  SimTime now;  // the end of the last committed iteration, or the last resumption
  SimTime resumed;
  SimTime checkpoint_time;
  std::int64_t checkpoint_iterations = 0;
  std::int64_t it = 0;
  while (it < iterations) {
    const SimTime begin = now;
    const SimTime end = begin + iteration_times[static_cast<std::size_t>(it)];
    if (next_fault < order.size()) {
      const std::size_t f = order[next_fault];
      const SimTime t = std::max(faults[f].at, resumed);
      if (t < end) {
        ++next_fault;
        FaultOutcome o;
        o.fault = f;
        o.at = t;
        o.detected = t + detection_timeout;
        o.resumed = o.detected + checkpoint.restart_cost;
        o.downtime = o.resumed - t;
        o.iterations_lost = it - checkpoint_iterations + (t > begin ? 1 : 0);
        o.lost_work = t - checkpoint_time;
        o.workers_after = workers;
        out.faults.push_back(o);
        out.happened[f] = true;
        it = checkpoint_iterations;
        now = resumed = checkpoint_time = o.resumed;  // the state equals the checkpoint again
        continue;
      }
    }
    end_of[static_cast<std::size_t>(it)] = end;
    now = end;
    ++it;
    if ((checkpoint.every_iterations && it % *checkpoint.every_iterations == 0) ||
        (checkpoint.every && end - checkpoint_time >= *checkpoint.every)) {
      checkpoint_iterations = it;
      checkpoint_time = end;
    }
  }
  SimTime previous;
  for (const SimTime e : end_of) {
    out.iteration_times.push_back(e - previous);
    previous = e;
  }
  out.total = end_of.back();
  return out;
}

}  // namespace syncsim
