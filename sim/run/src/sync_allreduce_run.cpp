// Strategies sync and local_sgd over AllReduce: the scenario turned into a SynchronousRunSetup (degraded links
// and faults resolved against the topology first), run_synchronous, and its result turned into the report.
#include <fmt/format.h>

#include <string>

#include "engines.hpp"
#include "fault_plan.hpp"
#include "network_timeline.hpp"
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
                        .policy = p.policy,
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

}  // namespace

RunOutput run_sync_allreduce(RunContext& context) {
  const Scenario& s = context.scenario();
  check_supported(s);
  const std::int64_t workers = context.workers();
  NetworkTimeline network(context);  // checks degraded_links against the topology
  const std::vector<PlannedFault> faults = plan_faults(s, context.topology(), workers);

  SynchronousRunSetup setup;
  setup.ddp.layers = context.layer_times();
  setup.ddp.buckets = make_buckets(context.model(), s.training.bucket_size, context.precision());
  setup.ddp.overlap = s.training.overlap;
  setup.ddp.micro_batches = s.model.micro_batches;
  setup.ddp.optimizer_step = context.optimizer_step();
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
  setup.observer = &recorder;
  recorder.set_step_source([&](Bytes bytes, std::int64_t ranks, SimTime start) {
    return network.allreduce_outcome(bytes, ranks, start).outcome;
  });
  const SynchronousRunResult result = run_synchronous(setup);

  RunOutput out;
  TrainingReport& r = out.report;
  r = context.base_report();
  fill_throughput(r, s.training.iterations, result.total, result.mean, result.p50, result.p99);
  if (result.rank_iterations != workers * s.training.iterations && result.total > SimTime::zero()) {
    // Elastic recovery shrank the global batch: count the samples actually trained.
    const double samples = static_cast<double>(result.rank_iterations * r.batch_per_gpu * r.micro_batches);
    r.samples_per_second = samples / result.total.seconds();
    r.scaling_efficiency = r.samples_per_second / (static_cast<double>(workers) * r.single_gpu_samples_per_second);
  }
  for (const RankRunStats& rank : result.ranks) {
    // A fault's wait (down, stalled, restarting, gone) is idle, like waiting for a straggler, not communication.
    r.per_worker.push_back({.compute = rank.compute,
                            .optimizer = rank.optimizer,
                            .exposed_communication = rank.idle - rank.straggler_wait - rank.fault_wait,
                            .straggler_wait = rank.straggler_wait + rank.fault_wait,
                            .updates = std::nullopt});
  }
  compute_shares(r);
  fill_faults(r, result, faults);
  for (const GradientBucket& bucket : setup.ddp.buckets.buckets) {
    BucketReport b;
    b.bytes = bucket.bytes;
    b.algorithm = "none";
    if (workers > 1) {
      const CollectiveOutcome& o = context.allreduce(bucket.bytes);
      b.allreduce_time = o.time;
      b.algorithm = std::string(to_string(o.algorithm));
      if (o.protocol) b.protocol = std::string(to_string(*o.protocol));
      b.channels = o.channels;
    }
    r.buckets.push_back(std::move(b));
  }
  if (workers > 1) record_link_loads(context, network, recorder, r);
  out.trace = std::move(recorder).build();
  return out;
}

}  // namespace syncsim::run
