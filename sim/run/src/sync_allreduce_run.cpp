// Strategies sync and local_sgd over AllReduce: the scenario turned into a SynchronousRunSetup (degraded links
// and faults resolved against the topology first), run_synchronous, and its result turned into the report.
#include <fmt/format.h>

#include <numeric>
#include <string>

#include "engines.hpp"
#include "fault_plan.hpp"
#include "recompute_share.hpp"
#include "replayed_faults.hpp"
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

// One update per iteration, at the iteration's end on the last rank (iteration_times add up to it); the members
// are the ranks that elastic recovery has not dropped by then. Iterations a restart threw away are not there:
// the proxy sees the run as resumed from the checkpoint, since the data of an iteration depends on its index only.
convergence::UpdateSchedule update_schedule(const SynchronousRunSetup& setup, const SynchronousRunResult& result,
                                            const GradientCompression& compression) {
  convergence::UpdateSchedule schedule;
  schedule.kind = setup.sync_every > 0 ? convergence::ScheduleKind::local : convergence::ScheduleKind::synchronous;
  schedule.workers = setup.ranks;
  if (!setup.ddp.syncs.empty()) {
    schedule.compression = compression;
    schedule.compression.start_iteration = setup.compress_from;
  }
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

// Each bucket's AllReduce as the intact network runs it (a single worker has none), and its compressed
// synchronization when there is one.
void fill_buckets(TrainingReport& r, ResolvedScenario& context, const DdpSetup& ddp) {
  for (std::size_t b = 0; b < ddp.buckets.buckets.size(); ++b) {
    const GradientBucket& bucket = ddp.buckets.buckets[b];
    if (context.workers() <= 1) {
      r.buckets.push_back(BucketReport{
          .bytes = bucket.bytes, .allreduce_time = SimTime::zero(), .algorithm = "none", .protocol = std::nullopt});
      continue;
    }
    r.buckets.push_back(allreduce_bucket_report(bucket.bytes, context.allreduce(bucket.bytes)));
    if (ddp.syncs.empty()) continue;
    const BucketSync& sync = ddp.syncs[b];
    r.buckets.back().compressed = {
        .wire_bytes = sync.wire_bytes(), .encode = sync.encode, .sync_time = sync_time(sync, ddp.collective_time)};
  }
}

// The data-parallel group's bus bytes per GPU per iteration (nccl-tests' busbw accounting: an AllReduce of S moves
// 2 (d - 1)/d x S, an AllGather (d - 1)/d x S), every bucket once per iteration (DDP) or once per K iterations
// (local SGD's averaging); compressed iterations count their own collectives.
void fill_data_communication(TrainingReport& r, const SynchronousRunSetup& setup, std::int64_t workers,
                             std::int64_t iterations) {
  const double d = static_cast<double>(workers);
  const double every = setup.sync_every > 0 ? static_cast<double>(setup.sync_every) : 1;
  double bytes = 2 * (d - 1) / d * static_cast<double>(setup.ddp.buckets.total_bytes().value) / every;
  if (!setup.ddp.syncs.empty()) {
    double compressed = 0;
    for (const BucketSync& sync : setup.ddp.syncs) compressed += sync.bus_bytes(workers);
    const auto plain_iterations = static_cast<double>(std::min(setup.compress_from, iterations));
    bytes = (bytes * plain_iterations + compressed * (static_cast<double>(iterations) - plain_iterations)) /
            static_cast<double>(iterations);
  }
  SimTime exposed;
  for (const WorkerReport& w : r.per_worker) exposed += w.exposed_communication;
  const std::int64_t per = static_cast<std::int64_t>(r.per_worker.size()) * r.iterations;
  const std::string collectives = setup.sync_every > 0      ? "all_reduce per bucket every sync_every"
                                  : setup.ddp.syncs.empty() ? "all_reduce per bucket"
                                                            : "compressed per bucket";
  r.group_communication.push_back({.group = "data",
                                   .collectives = collectives,
                                   .bytes_per_gpu = bytes,
                                   .exposed = SimTime::from_ps(exposed.ps() / std::max<std::int64_t>(per, 1))});
}

// What compression saves on the wire and costs in kernels, per compressed iteration.
void fill_compression(TrainingReport& r, const SynchronousRunSetup& setup, const GradientCompression& c,
                      const ModelSpec& model, std::int64_t workers, Precision precision) {
  CompressionReport out;
  out.kind = std::string(to_string(c.kind));
  out.rank = c.rank;
  out.ratio = c.ratio;
  out.error_feedback = c.error_feedback;
  out.start_iteration = c.start_iteration;
  out.gradient_bytes = setup.ddp.buckets.total_bytes();
  const double d = static_cast<double>(workers);
  out.plain_bus_bytes_per_gpu = 2 * (d - 1) / d * static_cast<double>(out.gradient_bytes.value);
  for (std::size_t b = 0; b < setup.ddp.syncs.size(); ++b) {
    const BucketSync& sync = setup.ddp.syncs[b];
    out.wire_bytes += sync.wire_bytes();
    out.bus_bytes_per_gpu += sync.bus_bytes(workers);
    out.encode += sync.encode;
    out.stream_compute += sync.compute_on_stream();
    if (c.kind == CompressionKind::powersgd) {
      const PowerSgdSplit split = powersgd_split(model, setup.ddp.buckets.buckets[b], c.rank, c.min_compression_rate);
      out.compressed_matrices += split.compressed_matrices;
      out.uncompressed_params += split.uncompressed_elements;
    }
  }
  if ((c.kind == CompressionKind::fp16 || c.kind == CompressionKind::bf16) && element_bytes(precision) <= 2) {
    out.note = fmt::format("gradients are already 16-bit under {}: {} compression sends the same bytes",
                           to_string(precision), out.kind);
  } else if (c.kind == CompressionKind::powersgd && out.compressed_matrices == 0) {
    out.note = "no weight matrix is worth compressing (none known, or all too small): buckets are sent as they are";
  }
  r.compression = out;
}

// What the run would gain without its communication, and without its stragglers: the run repeated without each
// (bottleneck.hpp). A cause the run does not have costs nothing and is not repeated.
std::vector<CauseReport> measure_causes(const SynchronousRunSetup& setup, const SynchronousRunResult& result,
                                        std::int64_t iterations) {
  const auto gain = [&](const SynchronousRunSetup& without) {
    const SimTime total = run_synchronous(without).total;
    return SimTime::from_ps(std::max<std::int64_t>(0, (result.total - total).ps() / iterations));
  };
  std::vector<CauseReport> causes;
  SynchronousRunSetup free = setup;
  free.on_iteration = nullptr;
  free.ddp.collective_time = [](CollectiveOp, Bytes) { return SimTime::zero(); };
  free.collective_time_at = nullptr;
  causes.push_back({.cause = "communication", .group = "data", .per_iteration = gain(free), .measured = true});
  const StragglerSpec& stragglers = setup.stragglers.spec();
  if (stragglers.jitter != JitterKind::none || !stragglers.slow_ranks.empty()) {
    SynchronousRunSetup even = setup;
    even.on_iteration = nullptr;
    even.stragglers = StragglerModel{};
    causes.push_back({.cause = "stragglers", .per_iteration = gain(even), .measured = true});
  }
  return causes;
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
  setup.ddp.buckets = context.bucket_plan();
  setup.ddp.overlap = s.training.overlap;
  setup.ddp.micro_batches = s.model.micro_batches;
  setup.ddp.optimizer_step = context.optimizer_step();
  if (workers > 1) {
    // One worker runs no framework bookkeeping and overlaps nothing: it is the single-GPU baseline.
    if (s.training.framework_overhead) setup.ddp.framework_overhead = s.training.framework_overhead->value;
    setup.ddp.overlap_slowdown = s.training.overlap_slowdown_or_default();
  }
  if (workers > 1) {
    setup.ddp.collective_time = [&](CollectiveOp op, Bytes size) { return context.collective(op, size).time; };
    setup.collective_time_at = [&](CollectiveOp op, Bytes size, std::int64_t ranks, SimTime start) {
      return network.collective(op, size, ranks, start);
    };
    const GradientCompression& compression = s.training.gradient_compression.value;
    if (compression.enabled()) {
      setup.ddp.syncs = bucket_syncs(context.model(), setup.ddp.buckets, element_bytes(context.precision()),
                                     compression, context.compute(), workers);
      setup.compress_from = compression.start_iteration;
    }
  } else {
    setup.ddp.collective_time = [](CollectiveOp, Bytes) { return SimTime::zero(); };
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
    return network.collective_outcome(CollectiveOp::allreduce, bytes, ranks, start).outcome;
  });
  const SynchronousRunResult result = run_synchronous(setup, &recorder);
  std::vector<bool> happened(s.faults.size(), false);
  for (const FaultOutcome& outcome : result.faults) happened[outcome.fault] = true;
  check_faults_happened(s, happened, result.total);
  if (schedule != nullptr) *schedule = update_schedule(setup, result, s.training.gradient_compression.value);

  RunOutput out;
  TrainingReport& r = out.report;
  r = context.base_report();
  fill_throughput(context, r, s.training.iterations, result.total, result.mean, result.p50, result.p99);
  fill_workers(r, result, workers, s.training.iterations);
  split_recompute(r, context, setup.ddp.layers);
  compute_shares(r);
  fill_faults(r, result.faults, faults);
  fill_buckets(r, context, setup.ddp);
  if (workers > 1) fill_data_communication(r, setup, workers, s.training.iterations);
  if (workers > 1 && s.training.gradient_compression.value.enabled()) {
    fill_compression(r, setup, s.training.gradient_compression.value, context.model(), workers, context.precision());
  }
  if (workers > 1) record_link_loads(context, network, recorder, r);
  if (workers > 1) r.causes = measure_causes(setup, result, s.training.iterations);
  out.trace = std::move(recorder).build();
  return out;
}

}  // namespace syncsim::run
