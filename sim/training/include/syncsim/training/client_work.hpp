#pragma once
// What one parameter-server client computes in one iteration (parameter_server_run.hpp's ClientWork), from the
// layer times, the bucket plan and the straggler model: a single worker, or a hybrid group that reduces its
// gradients with AllReduce inside the group before its leader pushes them.
#include <cstdint>
#include <functional>

#include "syncsim/training/bucket_plan.hpp"
#include "syncsim/training/ddp_iteration.hpp"
#include "syncsim/training/parameter_server_run.hpp"
#include "syncsim/training/straggler_model.hpp"

namespace syncsim {

struct WorkerCompute {
  SimTime forward_end;                // start of the last micro-batch's backward
  SimTime compute_end;                // k x (forward + backward)
  std::vector<SimTime> bucket_ready;  // per bucket, in the last micro-batch (overlap) or compute_end
};

// One worker's compute at `factor` x nominal speed, each layer's time rounded to the picosecond as
// run_synchronous does.
WorkerCompute worker_compute(const LayerTimes& layers, const BucketPlan& buckets, std::int64_t micro_batches,
                             bool overlap, double factor);

// A single worker as a client: its buckets are pushed as they become ready.
ClientWork single_worker_work(const WorkerCompute& compute);

// A hybrid group of ranks [first, first + size): DDP inside the group (bucket AllReduce when every member has
// the bucket and the group's one communication stream is free), then the group's whole gradient is one push,
// ready when the last bucket's AllReduce ends. busy is the members' mean compute.
ClientWork group_work(const LayerTimes& layers, const BucketPlan& buckets, std::int64_t micro_batches, bool overlap,
                      const StragglerModel& stragglers, std::int64_t first, std::int64_t size, std::int64_t iteration,
                      const std::function<SimTime(Bytes)>& allreduce_time);

}  // namespace syncsim
