#pragma once
// What the parameter-server scenario tests read from a report: worker 0's compute time per iteration.
#include "syncsim/core/sim_time.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::worker_compute {

inline SimTime compute_per_iteration(const TrainingReport& r) {
  return SimTime::from_ps(r.per_worker.at(0).compute.ps() / r.iterations);
}

}  // namespace syncsim::worker_compute
