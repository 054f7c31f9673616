#pragma once
// replay_faults: synchronous training's faults over the iteration times of a fault-free run, for the engines that do
// not simulate ranks one by one (the model-parallel and sharded ones). Every collective of synchronous training
// waits for every rank, so a fault stops the whole job whatever the layout: the job's lost time is the DDP engine's
// accounting (synchronous_run.hpp, docs/faults.md), applied to whole iterations instead of re-simulating ranks:
//
//   - iteration i takes iteration_times[i] of the fault-free run, every time it runs (a rerun after a restart too);
//   - a fault at t (or at the resumption, when it falls in an earlier fault's recovery) that comes before the end of
//     the iteration in progress stops the job; it is detected at t + detection_timeout and every rank (the failed
//     one replaced) resumes at detection + restart_cost from the last checkpoint;
//   - checkpoints at iteration ends, at no cost: every `every_iterations`, or at the first iteration end at least
//     `every` after the last checkpoint (or resumption); the initial state is one;
//   - reported per fault as FaultOutcome: iterations_lost = the iterations since the checkpoint, plus the one in
//     progress when it had started; lost_work = t - (the later of the checkpoint and the last resumption).
//
// With a constant iteration time T, a checkpoint every c iterations and one failure at t:
//   total = I T + (t - c floor(t / (c T)) T) + detection_timeout + restart_cost
// Only restart_from_checkpoint: an elastic recovery changes the layout (not replayed); continue cannot happen.
#include <cstdint>
#include <vector>

#include "syncsim/core/sim_time.hpp"
#include "syncsim/training/synchronous_run.hpp"

namespace syncsim {

struct FaultReplay {
  std::vector<SimTime> iteration_times;  // as run_synchronous reports them: the lost work and downtime land in them
  SimTime total;
  std::vector<FaultOutcome> faults;  // in time order
  std::vector<bool> happened;        // per fault of the input: whether it took effect before the run's end
};

// Throws InputError for no iterations, a negative iteration time or a fault whose recovery is not
// restart_from_checkpoint.
FaultReplay replay_faults(const std::vector<SimTime>& iteration_times, const std::vector<FaultEvent>& faults,
                          const CheckpointPolicy& checkpoint, SimTime detection_timeout, std::int64_t workers);

}  // namespace syncsim
