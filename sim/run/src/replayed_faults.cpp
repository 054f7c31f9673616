#include "replayed_faults.hpp"

#include <fmt/format.h>

#include "syncsim/core/input_error.hpp"
#include "syncsim/training/synchronous_run.hpp"

namespace syncsim::run {

FaultedRun replay_scenario_faults(ResolvedScenario& context, const std::vector<SimTime>& iteration_times) {
  const Scenario& s = context.scenario();
  FaultedRun run;
  run.planned = plan_faults(s, context.topology(), context.workers());
  std::vector<FaultEvent> events;
  for (const PlannedFault& p : run.planned) events.push_back(p.event);
  const CheckpointPolicy checkpoint{.every_iterations = s.checkpoint.every_iterations,
                                    .every = s.checkpoint.every,
                                    .restart_cost = s.checkpoint.restart_cost};
  run.replay = replay_faults(iteration_times, events, checkpoint, s.detection_timeout, context.workers());
  check_faults_happened(s, run.replay.happened, run.replay.total);
  return run;
}

void fill_faulted_run(ResolvedScenario& context, TrainingReport& r, const FaultedRun& run, SimTime fault_free_total) {
  const FaultReplay& replay = run.replay;
  const auto iterations = static_cast<std::int64_t>(replay.iteration_times.size());
  fill_throughput(context, r, iterations, replay.total, SimTime::from_ps(replay.total.ps() / iterations),
                  nearest_rank_percentile(replay.iteration_times, 50),
                  nearest_rank_percentile(replay.iteration_times, 99));
  fill_faults(r, replay.faults, run.planned);
  if (replay.faults.empty() || fault_free_total <= SimTime::zero()) return;
  // The iterations run again repeat the fault-free run's mix of work; the downtime is every worker's idle.
  const double again = 1 + r.lost_work.seconds() / fault_free_total.seconds();
  for (WorkerReport& w : r.per_worker) {
    for (SimTime* t : {&w.compute, &w.optimizer, &w.exposed_communication, &w.straggler_wait, &w.framework_overhead,
                       &w.overlap_interference, &w.pipeline_bubble, &w.recompute, &w.exposed_tensor, &w.exposed_context,
                       &w.exposed_pipeline, &w.exposed_expert}) {
      *t = t->scaled(again);
    }
    w.straggler_wait += r.downtime;
  }
}

std::vector<SimTime> fill_run_timeline(ResolvedScenario& context, TrainingReport& r,
                                       const std::vector<SimTime>& iteration_times, SimTime total) {
  if (context.scenario().faults.empty()) {
    const auto n = static_cast<std::int64_t>(iteration_times.size());
    fill_throughput(context, r, n, total, SimTime::from_ps(total.ps() / n),
                    nearest_rank_percentile(iteration_times, 50), nearest_rank_percentile(iteration_times, 99));
    return iteration_times;
  }
  const FaultedRun run = replay_scenario_faults(context, iteration_times);
  fill_faulted_run(context, r, run, total);
  return run.replay.iteration_times;
}

void fill_faults(TrainingReport& r, const std::vector<FaultOutcome>& outcomes,
                 const std::vector<PlannedFault>& planned) {
  for (const FaultOutcome& o : outcomes) {
    const PlannedFault& p = planned[o.fault];
    r.faults.push_back({.kind = p.kind,
                        .target = p.target,
                        .policy = p.event.recovery,
                        .at = o.at,
                        .detected = o.detected,
                        .resumed = o.resumed,
                        .iterations_lost = o.iterations_lost,
                        .lost_work = o.lost_work,
                        .downtime = o.downtime,
                        .workers_after = o.workers_after});
    r.lost_work += o.lost_work;
    r.downtime += o.downtime;
  }
}

}  // namespace syncsim::run
