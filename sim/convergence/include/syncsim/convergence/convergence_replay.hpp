#pragma once
// replay_convergence: train the proxy problem (proxy_model.hpp) in the order a simulated run applied its
// updates (update_schedule.hpp), and measure the held-out loss against simulated time.
//
//   UpdateSchedule schedule = ...;            // from the engine that ran the scenario
//   ConvergenceResult r = replay_convergence(*scenario.convergence, scenario.seed, schedule);
//   r.time_to_target;                         // first evaluation at or below target_loss, if any
//
// Plain SGD. Every gradient is the mean over its batch (GradientSum: exact, order-independent); a synchronous
// update averages all members' samples; an asynchronous one is computed on the parameters of version
// read_version and applied to the current version (the server keeps the versions some client still holds).
// Evaluations: before the first update, every eval_every updates and after the last. The replay stops early,
// and says so, when training has diverged: a per-sample gradient or the loss is not finite or bounded
// (GradientSum::kMaxComponent), or the held-out loss exceeds 100 times its initial value.
#include <cstdint>
#include <optional>
#include <vector>

#include "syncsim/convergence/update_schedule.hpp"
#include "syncsim/core/sim_time.hpp"
#include "syncsim/scenario/convergence_config.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::convergence {

struct ConvergenceResult {
  std::vector<ConvergenceSample> curve;  // update, its time, samples so far, held-out loss and accuracy
  std::int64_t updates = 0;              // applied (fewer than scheduled after divergence)
  std::int64_t samples = 0;
  std::int64_t eval_every = 1;
  std::optional<std::int64_t> updates_to_target;
  std::optional<SimTime> time_to_target;
  std::optional<std::int64_t> diverged_at_update;
  std::optional<SimTime> diverged_at;
  std::vector<double> parameters;  // the final parameters (local SGD: the workers' average)
};

// Throws InputError (at the convergence section) when one update would average more than GradientSum::kMaxBatch
// samples.
ConvergenceResult replay_convergence(const ConvergenceConfig& config, std::uint64_t seed,
                                     const UpdateSchedule& schedule);

}  // namespace syncsim::convergence
