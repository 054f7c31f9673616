#pragma once
// run_synchronous: N ranks, I iterations of synchronous DDP or local SGD, with stragglers, a time-varying network
// (degraded links) and faults (docs/faults.md).
//
// Each rank keeps its own clock. In iteration i, rank r:
//   - computes k micro-batches of forward and backward (as in ddp_iteration.hpp) with every layer's time scaled by
//     StragglerModel::factor(r, i), rounded to the picosecond per layer; the optimizer step is not scaled;
//   - joins bucket j's AllReduce when its backward has produced the bucket (overlap on) or when its whole backward
//     has ended (overlap off). The collective is synchronous: it starts when EVERY rank has joined and the shared,
//     in-order communication stream is free (the previous bucket, possibly of the previous iteration, has ended),
//     and takes collective_time(allreduce, bytes), the same function as DdpSetup's. Under gradient compression
//     the bucket's whole synchronization (DdpSetup::syncs: its collectives and kernels) runs there instead, from
//     iteration compress_from on; the iterations before it run the plain AllReduce;
//   - starts its optimizer step when its own backward and the last AllReduce have ended, and the next iteration
//     when its optimizer step ends. Since the last bucket normally holds layer 0's gradients, the last AllReduce
//     ends after every rank's backward and all ranks start the next iteration together.
// With one rank, or no jitter and every slow factor 1, every iteration is exactly simulate_ddp_iteration's.
//
// Local SGD (sync_every = K >= 1): no gradient communication at all; each rank runs forward, backward and its
// optimizer step on its own clock. After the optimizer step of every K-th iteration (iterations K-1, 2K-1, ...),
// the parameters are averaged: every bucket's AllReduce back to back on the stream, starting when the last rank's
// optimizer step has ended, and no rank starts the next iteration before the last one ends. Without stragglers:
//   total = I (k(F + B) + O) + floor(I / K) sum_j T_j
//
// Network over time: collective_time_at(op, size, ranks, start) gives the time of a collective that starts at
// `start`; the collective keeps that time whatever happens to the network while it runs.
//
// Faults (FaultEvent, in time order; one that happens while the job is still recovering from the previous one
// takes effect at that resumption). At time t the fault's ranks stop; the iteration in progress cannot finish
// (its next collective waits for them), and the failure is detected at t + detection_timeout. Then:
//   - restart_from_checkpoint: every rank (the failed ones replaced) resumes at detection + restart_cost from the
//     last checkpoint and runs the lost iterations again;
//   - elastic: the failed ranks leave, the others resume at detection + restart_cost with the iteration that was
//     in progress, AllReduce over the survivors.
// Checkpoints are taken at iteration ends at no cost: every `every_iterations` iterations, or at the first
// iteration end at least `every` after the last checkpoint (or resumption). With neither, the only checkpoint is
// the initial state. The job's state equals the checkpoint when it is written and when the job resumes from it,
// so lost_work = t - (the later of the two). A fault after the last iteration's end does not happen.
// The iteration in progress at t counts as lost when it had started before t.
//
// Reported:
//   - iteration_times[i]: end of iteration i on the last rank minus that of iteration i - 1 (0 before the first);
//     they sum to `total`. After a restart, iteration i's time is that of its last run, measured from the end of
//     iteration i - 1 (possibly before the fault): the lost work, the downtime and the rerun land in it.
//     mean, p50 and p99 are over these; percentiles are nearest-rank: the p-th is the ceil(p/100 x I)-th
//     smallest (1-based), so p50 of {1,2,3,4} is 2 and p99 of 100 values is the 99th.
//   - per rank, over [0, total]: compute (forward + backward, busy), optimizer (busy), idle = total - compute -
//     optimizer (everything the rank waits: exposed communication, the slowest rank, faults, the end of the run).
//     compute and optimizer include work that a fault threw away.
//     straggler_wait is the part of idle spent waiting for slower ranks: per iteration, from this rank's backward
//     end to the last rank's backward end (capped at this rank's optimizer start). With overlap off and a
//     persistent slow rank s, a normal rank's straggler_wait is exactly s's extra compute, and its idle exceeds
//     s's idle by that amount.
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "syncsim/core/sim_time.hpp"
#include "syncsim/training/ddp_iteration.hpp"
#include "syncsim/training/faults.hpp"
#include "syncsim/training/straggler_model.hpp"

namespace syncsim {

// A failure as the engine sees it: when, and which ranks stop (a link_down's ranks are the workers it cut off;
// none when every worker still reaches the others: the collective over the link fails all the same).
struct FaultEvent {
  SimTime at;
  std::vector<std::int64_t> ranks;  // ranks of the initial numbering
  // restart_from_checkpoint or elastic: every collective waits for every rank, so it cannot continue without one.
  FaultPolicy recovery = FaultPolicy::restart_from_checkpoint;
};

struct CheckpointPolicy {
  std::optional<std::int64_t> every_iterations;  // >= 1
  std::optional<SimTime> every;                  // > 0
  SimTime restart_cost;
};

// What the engine did, for the trace (sync_trace.hpp): every span as it is placed, aborted attempts included.
// `iteration` is the iteration's index (an iteration run again after a restart is reported again).
class SynchronousRunObserver {
 public:
  enum class FaultSpan { down, stalled, restart };
  virtual ~SynchronousRunObserver() = default;
  virtual void on_compute(std::int64_t rank, std::int64_t iteration, std::int64_t micro_batch, ComputePhase phase,
                          SimTime start, SimTime end, double factor) = 0;
  // One bucket's synchronization over `ranks` (a plain one is one AllReduce of the bucket): `step_starts` holds
  // the start of each of sync's steps, then its end. `averaging` for local SGD's parameter averaging.
  virtual void on_bucket_sync(std::int64_t iteration, std::size_t bucket, const BucketSync& sync,
                              const std::vector<SimTime>& step_starts, const std::vector<std::int64_t>& ranks,
                              bool averaging) = 0;
  virtual void on_optimizer(std::int64_t rank, std::int64_t iteration, SimTime start, SimTime end) = 0;
  virtual void on_idle(std::int64_t rank, std::int64_t iteration, SimTime start, SimTime end) = 0;
  // down: the failed rank, failure to detection; stalled: another rank waiting for the detection; restart:
  // detection to resumption, every rank that goes on.
  virtual void on_fault(std::int64_t rank, FaultSpan span, std::size_t fault, SimTime start, SimTime end) = 0;
};

struct SynchronousRunSetup {
  DdpSetup ddp;  // nominal (factor 1) per-rank iteration: layer times, buckets, AllReduce time, overlap, k, optimizer
  std::int64_t ranks = 1;
  std::int64_t iterations = 1;
  StragglerModel stragglers;    // default: none
  std::int64_t sync_every = 0;  // 0: DDP; K >= 1: local SGD, averaging after every K-th iteration
  // Time of `op` of `size` over `ranks` ranks starting at `start`; empty: ddp.collective_time(op, size).
  std::function<SimTime(CollectiveOp op, Bytes size, std::int64_t ranks, SimTime start)> collective_time_at;
  // The first iteration whose buckets synchronize as ddp.syncs says (GradientCompression::start_iteration).
  std::int64_t compress_from = 0;
  std::vector<FaultEvent> faults;
  CheckpointPolicy checkpoint;
  SimTime detection_timeout = SimTime::from_seconds(30);
  // Called after each committed iteration with the count committed so far (a restart can lower it); it may throw
  // to abandon the run (a cancelled GUI run).
  std::function<void(std::int64_t committed)> on_iteration;
};

// One fault that happened, in time order (FaultReport's fields).
struct FaultOutcome {
  std::size_t fault = 0;  // index in SynchronousRunSetup::faults
  SimTime at;             // when it took effect
  SimTime detected;
  SimTime resumed;
  std::int64_t iterations_lost = 0;
  SimTime lost_work;
  SimTime downtime;  // resumed - at
  std::int64_t workers_after = 0;
};

struct RankRunStats {
  SimTime compute;         // forward + backward, all iterations
  SimTime optimizer;       // optimizer steps, all iterations
  SimTime idle;            // total - compute - optimizer
  SimTime straggler_wait;  // part of idle: waiting for the last rank's backward (see above)
  SimTime framework;       // part of idle: the framework's overhead (DdpSetup::framework_overhead)
  SimTime interference;    // backward's extra time beside the AllReduces (DdpSetup::overlap_slowdown), not in compute
  SimTime fault_wait;      // part of idle: down, stalled or restarting because of a fault, or gone (elastic)
};

struct SynchronousRunResult {
  std::vector<SimTime> iteration_times;
  std::vector<RankRunStats> ranks;
  SimTime total;
  SimTime mean;  // total / I, rounded down to the picosecond
  SimTime p50;
  SimTime p99;
  std::vector<FaultOutcome> faults;
  // Sum over the completed iterations of the ranks that ran them: I x N without elastic faults. The samples
  // trained are this x batch x micro-batches.
  std::int64_t rank_iterations = 0;

  // Nearest-rank percentile of the iteration times, 0 < p <= 100.
  SimTime percentile(double p) const;
  // Samples per second when an iteration processes `global_batch` samples over all ranks (micro-batches
  // included): global_batch x I / total.
  double samples_per_second(std::int64_t global_batch) const;
};

// Nearest-rank percentile of `times` (0 < p <= 100): the ceil(p/100 x n)-th smallest; zero for no times.
// Throws InputError for p out of range.
SimTime nearest_rank_percentile(std::vector<SimTime> times, double p);

// Throws InputError for what simulate_ddp_iteration rejects, ranks < 1, iterations < 1, a slow rank >= ranks,
// a negative AllReduce time, sync_every < 0, a fault rank out of range or already gone, a fault that would continue
// without its ranks, or an elastic fault that leaves no rank. The observer (not owned; may be null) sees every
// span as it is placed.
SynchronousRunResult run_synchronous(const SynchronousRunSetup& setup, SynchronousRunObserver* observer = nullptr);

}  // namespace syncsim
