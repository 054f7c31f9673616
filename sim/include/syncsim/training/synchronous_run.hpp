#pragma once
// run_synchronous: N ranks, I iterations of synchronous DDP with stragglers (issue 3, item 4; faults apart).
//
// Each rank keeps its own clock. In iteration i, rank r:
//   - computes k micro-batches of forward and backward (as in ddp_iteration.hpp) with every layer's time scaled by
//     StragglerModel::factor(r, i), rounded to the picosecond per layer; the optimizer step is not scaled;
//   - joins bucket j's AllReduce when its backward has produced the bucket (overlap on) or when its whole backward
//     has ended (overlap off). The collective is synchronous: it starts when EVERY rank has joined and the shared,
//     in-order communication stream is free (the previous bucket, possibly of the previous iteration, has ended),
//     and takes allreduce_time(bytes), the same function as DdpSetup's;
//   - starts its optimizer step when its own backward and the last AllReduce have ended, and the next iteration
//     when its optimizer step ends. Since the last bucket normally holds layer 0's gradients, the last AllReduce
//     ends after every rank's backward and all ranks start the next iteration together.
// With one rank, or no jitter and every slow factor 1, every iteration is exactly simulate_ddp_iteration's.
//
// Reported:
//   - iteration_times[i]: end of iteration i on the last rank minus that of iteration i - 1 (0 before the first);
//     they sum to `total`. mean, p50 and p99 are over these; percentiles are nearest-rank: the p-th is the
//     ceil(p/100 x I)-th smallest (1-based), so p50 of {1,2,3,4} is 2 and p99 of 100 values is the 99th.
//   - per rank, over [0, total]: compute (forward + backward, busy), optimizer (busy), idle = total - compute -
//     optimizer (everything the rank waits: exposed communication, the slowest rank, the end of the run).
//     straggler_wait is the part of idle spent waiting for slower ranks: per iteration, from this rank's backward
//     end to the last rank's backward end (capped at this rank's optimizer start). With overlap off and a
//     persistent slow rank s, a normal rank's straggler_wait is exactly s's extra compute, and its idle exceeds
//     s's idle by that amount.
#include <cstdint>
#include <vector>

#include "syncsim/core/sim_time.hpp"
#include "syncsim/training/ddp_iteration.hpp"
#include "syncsim/training/straggler_model.hpp"

namespace syncsim {

struct SynchronousRunSetup {
  DdpSetup ddp;  // nominal (factor 1) per-rank iteration: layer times, buckets, AllReduce time, overlap, k, optimizer
  std::int64_t ranks = 1;
  std::int64_t iterations = 1;
  StragglerModel stragglers;  // default: none
};

struct RankRunStats {
  SimTime compute;         // forward + backward, all iterations
  SimTime optimizer;       // optimizer steps, all iterations
  SimTime idle;            // total - compute - optimizer
  SimTime straggler_wait;  // part of idle: waiting for the last rank's backward (see above)
};

struct SynchronousRunResult {
  std::vector<SimTime> iteration_times;
  std::vector<RankRunStats> ranks;
  SimTime total;
  SimTime mean;  // total / I, rounded down to the picosecond
  SimTime p50;
  SimTime p99;

  // Nearest-rank percentile of the iteration times, 0 < p <= 100.
  SimTime percentile(double p) const;
  // Samples per second when an iteration processes `global_batch` samples over all ranks (micro-batches
  // included): global_batch x I / total.
  double samples_per_second(std::int64_t global_batch) const;
};

// Throws InputError for what simulate_ddp_iteration rejects, ranks < 1, iterations < 1, a slow rank >= ranks,
// or a negative AllReduce time.
SynchronousRunResult run_synchronous(const SynchronousRunSetup& setup);

}  // namespace syncsim
