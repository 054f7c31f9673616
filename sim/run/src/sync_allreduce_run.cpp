#include <fmt/format.h>

#include <string>

#include "engines.hpp"
#include "sync_trace.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/training/bucket_plan.hpp"
#include "syncsim/training/synchronous_run.hpp"

namespace syncsim::run {

namespace {

constexpr const char* kNotYet = "not simulated yet by syncsim run";

void check_supported(const Scenario& s) {
  if (s.training.strategy.value != StrategyKind::sync) {
    throw s.training.strategy.error(fmt::format("strategy '{}' is {}", to_string(s.training.strategy.value), kNotYet));
  }
  if (!s.faults.empty()) throw InputError(fmt::format("faults are {}", kNotYet), s.faults[0].where, s.faults[0].key);
  if (!s.degraded_links.empty()) {
    throw InputError(fmt::format("degraded links are {}", kNotYet), s.degraded_links[0].where, s.degraded_links[0].key);
  }
}

}  // namespace

RunOutput run_sync_allreduce(RunContext& context) {
  const Scenario& s = context.scenario();
  check_supported(s);
  const std::int64_t workers = context.workers();
  SynchronousRunSetup setup;
  setup.ddp.layers = context.layer_times();
  setup.ddp.buckets = make_buckets(context.model(), s.training.bucket_size, context.precision());
  setup.ddp.overlap = s.training.overlap;
  setup.ddp.micro_batches = s.model.micro_batches;
  setup.ddp.optimizer_step = context.optimizer_step();
  if (workers > 1) {
    setup.ddp.allreduce_time = [&](Bytes size) { return context.allreduce(size).time; };
  } else {
    setup.ddp.allreduce_time = [](Bytes) { return SimTime::zero(); };
  }
  setup.ranks = workers;
  setup.iterations = s.training.iterations;
  setup.stragglers = context.stragglers();
  const SynchronousRunResult result = run_synchronous(setup);

  RunOutput out;
  TrainingReport& r = out.report;
  r = context.base_report();
  fill_throughput(r, s.training.iterations, result.total, result.mean, result.p50, result.p99);
  for (const RankRunStats& rank : result.ranks) {
    r.per_worker.push_back({.compute = rank.compute,
                            .optimizer = rank.optimizer,
                            .exposed_communication = rank.idle - rank.straggler_wait,
                            .straggler_wait = rank.straggler_wait});
  }
  compute_shares(r);
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
  out.trace = build_sync_trace(setup, s.name);
  return out;
}

}  // namespace syncsim::run
