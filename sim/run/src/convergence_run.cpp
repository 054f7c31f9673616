#include "convergence_run.hpp"

#include <numeric>

#include <algorithm>

#include "syncsim/convergence/convergence_replay.hpp"

namespace syncsim::run {

ConvergenceReport run_convergence(const Scenario& scenario, const convergence::UpdateSchedule& schedule) {
  const ConvergenceConfig& config = *scenario.convergence;
  const convergence::ConvergenceResult result = convergence::replay_convergence(config, scenario.seed, schedule);
  ConvergenceReport r;
  r.problem = std::string(to_string(config.problem));
  r.parameters = static_cast<std::int64_t>(result.parameters.size());
  r.batch_per_worker = config.batch_per_worker;
  r.learning_rate = config.learning_rate;
  r.lr_scaling = std::string(to_string(config.lr_scaling));
  r.warmup_updates = config.warmup_updates;
  r.updates = result.updates;
  r.samples = result.samples;
  r.eval_every = result.eval_every;
  if (config.target_loss) r.target_loss = config.target_loss->value;
  r.time_to_target = result.time_to_target;
  r.updates_to_target = result.updates_to_target;
  r.diverged_at = result.diverged_at;
  r.diverged_at_update = result.diverged_at_update;
  r.curve = result.curve;
  if (!r.curve.empty()) {
    r.final_loss = r.curve.back().loss;
    r.final_accuracy = r.curve.back().accuracy;
    r.best_loss = std::min_element(r.curve.begin(), r.curve.end(), [](const auto& a, const auto& b) {
                    return a.loss < b.loss;
                  })->loss;
  }
  return r;
}

convergence::UpdateSchedule synchronous_schedule(std::int64_t workers, const std::vector<SimTime>& iteration_times) {
  convergence::UpdateSchedule schedule;
  schedule.kind = convergence::ScheduleKind::synchronous;
  schedule.workers = workers;
  std::vector<std::int64_t> everyone(static_cast<std::size_t>(workers));
  std::iota(everyone.begin(), everyone.end(), 0);
  schedule.member_sets.push_back(std::move(everyone));
  SimTime end;
  for (std::size_t i = 0; i < iteration_times.size(); ++i) {
    end += iteration_times[i];
    schedule.updates.push_back({.at = end, .source = 0, .read_version = static_cast<std::int64_t>(i)});
  }
  return schedule;
}

}  // namespace syncsim::run
