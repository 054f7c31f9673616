// Strategies sync and local_sgd over AllReduce: the scenario turned into a SynchronousRunSetup (degraded links
// and faults resolved against the topology first), run_synchronous, and its result turned into the report.
#include <fmt/format.h>

#include <numeric>
#include <string>

#include "engines.hpp"
#include "fault_plan.hpp"
#include "scenario_network.hpp"
#include "sync_link_load.hpp"
#include "sync_trace.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/training/bucket_plan.hpp"
#include "syncsim/training/synchronous_run.hpp"

namespace syncsim::run {

namespace {

void check_supported(const Scenario& s) {
  const StrategyKind strategy = s.training.strategy.value;
  if (strategy != StrategyKind::sync && strategy != StrategyKind::local_sgd) {
    throw s.training.strategy.error(
        fmt::format("strategy '{}' is not simulated yet by syncsim run", to_string(strategy)));
  }
}

void fill_faults(TrainingReport& r, const SynchronousRunResult& result, const std::vector<PlannedFault>& planned) {
  for (const FaultOutcome& o : result.faults) {
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

// One update per iteration, at the iteration's end on the last rank (iteration_times add up to it); the members
// are the ranks that elastic recovery has not dropped by then. Iterations a restart threw away are not there:
// the proxy sees the run as resumed from the checkpoint, since the data of an iteration depends on its index only.
convergence::UpdateSchedule update_schedule(const SynchronousRunSetup& setup, const SynchronousRunResult& result) {
  convergence::UpdateSchedule schedule;
  schedule.kind = setup.sync_every > 0 ? convergence::ScheduleKind::local : convergence::ScheduleKind::synchronous;
  schedule.workers = setup.ranks;
  std::vector<bool> gone(static_cast<std::size_t>(setup.ranks), false);
  std::vector<std::int64_t> members(static_cast<std::size_t>(setup.ranks));
  std::iota(members.begin(), members.end(), 0);
  schedule.member_sets.push_back(members);
  std::size_t next_fault = 0;
  SimTime end;
  for (std::size_t i = 0; i < result.iteration_times.size(); ++i) {
    end += result.iteration_times[i];
    bool changed = false;
    for (; next_fault < result.faults.size() && result.faults[next_fault].at < end; ++next_fault) {
      const FaultEvent& event = setup.faults[result.faults[next_fault].fault];
      if (event.recovery != FaultPolicy::elastic) continue;
      for (const std::int64_t rank : event.ranks) gone[static_cast<std::size_t>(rank)] = true;
      changed = true;
    }
    if (changed) {
      members.clear();
      for (std::int64_t r = 0; r < setup.ranks; ++r) {
        if (!gone[static_cast<std::size_t>(r)]) members.push_back(r);
      }
      schedule.member_sets.push_back(members);
    }
    const bool average = setup.sync_every > 0 && (static_cast<std::int64_t>(i) + 1) % setup.sync_every == 0;
    schedule.updates.push_back({.at = end,
                                .source = static_cast<std::int64_t>(schedule.member_sets.size()) - 1,
                                .read_version = static_cast<std::int64_t>(i),
                                .average = average});
  }
  return schedule;
}

// Each rank's time split, and the throughput again when elastic recovery shrank the global batch.
void fill_workers(TrainingReport& r, const SynchronousRunResult& result, std::int64_t workers,
                  std::int64_t iterations) {
  if (result.rank_iterations != workers * iterations && result.total > SimTime::zero()) {
    // Elastic recovery shrank the global batch: count the samples actually trained.
    const double samples = static_cast<double>(result.rank_iterations * r.batch_per_gpu * r.micro_batches);
    r.samples_per_second = samples / result.total.seconds();
    r.scaling_efficiency = r.samples_per_second / (static_cast<double>(workers) * r.single_gpu_samples_per_second);
  }
  for (const RankRunStats& rank : result.ranks) {
    // A fault's wait (down, stalled, restarting, gone) is idle, like waiting for a straggler, not communication.
    r.per_worker.push_back({.compute = rank.compute,
                            .optimizer = rank.optimizer,
                            .exposed_communication = rank.idle - rank.straggler_wait - rank.fault_wait - rank.framework,
                            .straggler_wait = rank.straggler_wait + rank.fault_wait,
                            .framework_overhead = rank.framework,
                            .overlap_interference = rank.interference,
                            .pipeline_bubble = SimTime::zero(),
                            .updates = std::nullopt});
  }
}

// Each bucket's AllReduce as the intact network runs it (a single worker has none).
void fill_buckets(TrainingReport& r, ResolvedScenario& context, const BucketPlan& plan) {
  for (const GradientBucket& bucket : plan.buckets) {
    if (context.workers() > 1) {
      r.buckets.push_back(allreduce_bucket_report(bucket.bytes, context.allreduce(bucket.bytes)));
    } else {
      r.buckets.push_back(BucketReport{
          .bytes = bucket.bytes, .allreduce_time = SimTime::zero(), .algorithm = "none", .protocol = std::nullopt});
    }
  }
}

// The data-parallel group's bus bytes per GPU per iteration (nccl-tests' busbw accounting: an AllReduce of S moves
// 2 (d - 1)/d x S), every bucket once per iteration (DDP) or once per K iterations (local SGD's averaging).
void fill_data_communication(TrainingReport& r, const SynchronousRunSetup& setup, std::int64_t workers) {
  const double d = static_cast<double>(workers);
  const double every = setup.sync_every > 0 ? static_cast<double>(setup.sync_every) : 1;
  const double bytes = 2 * (d - 1) / d * static_cast<double>(setup.ddp.buckets.total_bytes().value) / every;
  SimTime exposed;
  for (const WorkerReport& w : r.per_worker) exposed += w.exposed_communication;
  const std::int64_t per = static_cast<std::int64_t>(r.per_worker.size()) * r.iterations;
  r.group_communication.push_back(
      {.group = "data",
       .collectives = setup.sync_every > 0 ? "all_reduce per bucket every sync_every" : "all_reduce per bucket",
       .bytes_per_gpu = bytes,
       .exposed = SimTime::from_ps(exposed.ps() / std::max<std::int64_t>(per, 1))});
}

}  // namespace

RunOutput run_sync_allreduce(ResolvedScenario& context, convergence::UpdateSchedule* schedule) {
  const Scenario& s = context.scenario();
  check_supported(s);
  const std::int64_t workers = context.workers();
  NetworkTimeline network = scenario_network_timeline(context);  // checks degraded_links against the topology
  const std::vector<PlannedFault> faults = plan_faults(s, context.topology(), workers);

  SynchronousRunSetup setup;
  setup.ddp.layers = context.layer_times();
  setup.ddp.buckets = make_buckets(context.model(), s.training.bucket_size, context.precision());
  setup.ddp.overlap = s.training.overlap;
  setup.ddp.micro_batches = s.model.micro_batches;
  setup.ddp.optimizer_step = context.optimizer_step();
  if (workers > 1) {
    // One worker runs no framework bookkeeping and overlaps nothing: it is the single-GPU baseline.
    if (s.training.framework_overhead) setup.ddp.framework_overhead = s.training.framework_overhead->value;
    setup.ddp.overlap_slowdown = s.training.overlap_slowdown_or_default();
  }
  if (workers > 1) {
    setup.ddp.allreduce_time = [&](Bytes size) { return context.allreduce(size).time; };
    setup.allreduce_time_at = [&](Bytes size, std::int64_t ranks, SimTime start) {
      return network.allreduce(size, ranks, start);
    };
  } else {
    setup.ddp.allreduce_time = [](Bytes) { return SimTime::zero(); };
  }
  setup.ranks = workers;
  setup.iterations = s.training.iterations;
  setup.stragglers = context.stragglers();
  if (s.training.strategy.value == StrategyKind::local_sgd) setup.sync_every = s.training.sync_every->value;
  for (const PlannedFault& fault : faults) {
    setup.faults.push_back(fault.event);
    if (!fault.failed_links.empty()) network.fail_links(fault.failed_links, fault.event.at);
  }
  setup.checkpoint = {.every_iterations = s.checkpoint.every_iterations,
                      .every = s.checkpoint.every,
                      .restart_cost = s.checkpoint.restart_cost};
  setup.detection_timeout = s.detection_timeout;
  SyncTraceRecorder recorder(workers, s.training.iterations, s.name);
  if (context.reports_progress()) {
    setup.on_iteration = [&](std::int64_t committed) { context.report_progress(committed, s.training.iterations); };
  }
  recorder.set_step_source([&](Bytes bytes, std::int64_t ranks, SimTime start) {
    return network.allreduce_outcome(bytes, ranks, start).outcome;
  });
  const SynchronousRunResult result = run_synchronous(setup, &recorder);
  std::vector<bool> happened(s.faults.size(), false);
  for (const FaultOutcome& outcome : result.faults) happened[outcome.fault] = true;
  check_faults_happened(s, happened, result.total);
  if (schedule != nullptr) *schedule = update_schedule(setup, result);

  RunOutput out;
  TrainingReport& r = out.report;
  r = context.base_report();
  fill_throughput(r, s.training.iterations, result.total, result.mean, result.p50, result.p99);
  fill_workers(r, result, workers, s.training.iterations);
  compute_shares(r);
  fill_faults(r, result, faults);
  fill_buckets(r, context, setup.ddp.buckets);
  if (workers > 1) fill_data_communication(r, setup, workers);
  if (workers > 1) record_link_loads(context, network, recorder, r);
  out.trace = std::move(recorder).build();
  return out;
}

}  // namespace syncsim::run
