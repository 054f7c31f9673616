#include "ps_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "syncsim/training/synchronous_run.hpp"

namespace syncsim::run {

namespace {

// Update k at server 0 lands on version k, so it is k - read_version versions stale.
StalenessReport staleness_report(const std::vector<AppliedUpdate>& applied) {
  std::vector<std::int64_t> staleness;
  for (std::size_t k = 0; k < applied.size(); ++k) {
    staleness.push_back(static_cast<std::int64_t>(k) - applied[k].read_version);
  }
  StalenessReport out;
  out.updates = static_cast<std::int64_t>(staleness.size());
  if (staleness.empty()) return out;
  out.max = *std::max_element(staleness.begin(), staleness.end());
  out.mean = static_cast<double>(std::accumulate(staleness.begin(), staleness.end(), std::int64_t{0})) /
             static_cast<double>(staleness.size());
  out.histogram.assign(static_cast<std::size_t>(out.max) + 1, 0);
  for (const std::int64_t s : staleness) ++out.histogram[static_cast<std::size_t>(s)];
  return out;
}

void fill_times(const ResolvedScenario& context, TrainingReport& r, std::int64_t iterations,
                const ParameterServerResult& result, ParameterServerMode mode) {
  fill_throughput(context, r, iterations, result.total, SimTime::from_ps(result.total.ps() / iterations),
                  nearest_rank_percentile(result.iteration_times, 50),
                  nearest_rank_percentile(result.iteration_times, 99));
  if (mode != ParameterServerMode::asynchronous) return;
  // Asynchronous iterations are per worker: their mean, not the run's total over the iteration count.
  SimTime sum;
  for (const SimTime it : result.iteration_times) sum += it;
  r.iteration_mean = result.iteration_times.empty()
                         ? SimTime::zero()
                         : SimTime::from_ps(sum.ps() / static_cast<std::int64_t>(result.iteration_times.size()));
  r.staleness = staleness_report(result.applied);
}

// A worker's time is its client's: a hybrid group's members share it.
void fill_workers(TrainingReport& r, const ClientLayout& layout, const ParameterServerResult& result) {
  for (std::int64_t w = 0; w < layout.workers; ++w) {
    const ClientStats& c = result.clients[static_cast<std::size_t>(w / layout.group)];
    const SimTime idle = c.straggler_wait + (c.failed_at ? result.total - *c.failed_at : SimTime::zero());
    const SimTime exposed = std::max(SimTime::zero(), result.total - c.compute - idle);
    r.per_worker.push_back({.compute = c.compute,
                            .optimizer = SimTime::zero(),
                            .exposed_communication = exposed,
                            .straggler_wait = idle,
                            .framework_overhead = SimTime::zero(),
                            .overlap_interference = SimTime::zero(),
                            .pipeline_bubble = SimTime::zero(),
                            .updates = c.updates});
  }
  compute_shares(r);
}

// A failed client goes on no more (policy continue); the faults in time order, each leaving a group fewer.
void fill_faults(TrainingReport& r, const ClientLayout& layout, const ParameterServerResult& result) {
  for (std::size_t c = 0; c < result.clients.size(); ++c) {
    const ClientStats& stats = result.clients[c];
    if (!stats.failed_at) continue;
    FaultReport f;
    f.kind = FaultKind::worker_down;
    f.target = layout.grouped ? fmt::format("group {}", c) : fmt::format("rank {}", c);
    f.policy = FaultPolicy::continue_without;
    f.at = f.detected = f.resumed = *stats.failed_at;
    f.iterations_lost = stats.lost_work > SimTime::zero() ? 1 : 0;
    f.lost_work = stats.lost_work;
    r.lost_work += stats.lost_work;
    r.faults.push_back(f);
  }
  std::sort(r.faults.begin(), r.faults.end(), [](const FaultReport& a, const FaultReport& b) { return a.at < b.at; });
  for (std::size_t i = 0; i < r.faults.size(); ++i) {
    r.faults[i].workers_after = layout.workers - static_cast<std::int64_t>(i + 1) * layout.group;
  }
}

// The gradient buckets; a hybrid group's AllReduce of each inside the group.
void fill_buckets(TrainingReport& r, ResolvedScenario& context, const ClientLayout& layout, const BucketPlan& buckets) {
  for (const GradientBucket& bucket : buckets.buckets) {
    if (layout.grouped && layout.group > 1) {  // the AllReduce inside a group
      const auto group = static_cast<std::size_t>(layout.group);
      r.buckets.push_back(allreduce_bucket_report(bucket.bytes, context.allreduce(bucket.bytes, group)));
    } else {
      r.buckets.push_back(BucketReport{.bytes = bucket.bytes,
                                       .allreduce_time = SimTime::zero(),
                                       .algorithm = "parameter_server",
                                       .protocol = std::nullopt});
    }
  }
}

}  // namespace

TrainingReport parameter_server_report(ResolvedScenario& context, const ClientLayout& layout, const BucketPlan& buckets,
                                       const ParameterServerResult& result, ParameterServerMode mode) {
  TrainingReport r = context.base_report();
  fill_times(context, r, context.scenario().training.iterations, result, mode);
  fill_workers(r, layout, result);
  fill_faults(r, layout, result);
  fill_buckets(r, context, layout, buckets);
  return r;
}

}  // namespace syncsim::run
