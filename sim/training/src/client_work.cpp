#include "syncsim/training/client_work.hpp"

#include <algorithm>

namespace syncsim {

WorkerCompute worker_compute(const LayerTimes& layers, const BucketPlan& buckets, std::int64_t micro_batches,
                             bool overlap, double factor) {
  const std::size_t n = layers.forward.size();
  std::vector<SimTime> backward_end_of(n);
  WorkerCompute out;
  SimTime now;
  for (std::int64_t mb = 0; mb < micro_batches; ++mb) {
    for (std::size_t i = 0; i < n; ++i) now += layers.forward[i].scaled(factor);
    out.forward_end = now;
    for (std::size_t i = n; i-- > 0;) {
      now += layers.backward[i].scaled(factor);
      backward_end_of[i] = now;
    }
  }
  out.compute_end = now;
  for (const GradientBucket& bucket : buckets.buckets) {
    out.bucket_ready.push_back(overlap ? backward_end_of[bucket.ready_after_layer] : out.compute_end);
  }
  return out;
}

ClientWork single_worker_work(const WorkerCompute& compute) {
  return {compute.forward_end, compute.compute_end, compute.bucket_ready, compute.compute_end};
}

ClientWork group_work(const LayerTimes& layers, const BucketPlan& buckets, std::int64_t micro_batches, bool overlap,
                      const StragglerModel& stragglers, std::int64_t first, std::int64_t size, std::int64_t iteration,
                      const std::function<SimTime(Bytes)>& allreduce_time) {
  std::vector<WorkerCompute> members;
  SimTime busy_sum;
  ClientWork out;
  for (std::int64_t r = first; r < first + size; ++r) {
    members.push_back(worker_compute(layers, buckets, micro_batches, overlap, stragglers.factor(r, iteration)));
    busy_sum += members.back().compute_end;
    out.forward_end = std::max(out.forward_end, members.back().forward_end);
    out.compute_end = std::max(out.compute_end, members.back().compute_end);
  }
  SimTime stream_free = overlap ? SimTime::zero() : out.compute_end;
  for (std::size_t b = 0; b < buckets.buckets.size(); ++b) {
    SimTime ready;
    for (const WorkerCompute& m : members) ready = std::max(ready, m.bucket_ready[b]);
    stream_free = std::max(ready, stream_free) + (size > 1 ? allreduce_time(buckets.buckets[b].bytes) : SimTime{});
  }
  out.bucket_ready = {std::max(stream_free, out.compute_end)};
  out.busy = SimTime::from_ps(busy_sum.ps() / size);
  return out;
}

}  // namespace syncsim
