#include "syncsim/training/synchronous_run.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

SimTime scaled(SimTime t, double factor) {
  if (factor == 1.0) return t;
  return SimTime::from_ps(std::llround(static_cast<double>(t.ps()) * factor));
}

// One rank's compute in one iteration, as offsets from its start.
struct RankCompute {
  SimTime compute;                       // k x (forward + backward)
  std::vector<SimTime> backward_end_of;  // per layer, in the last micro-batch
};

void run_compute(const DdpSetup& ddp, double factor, RankCompute& out) {
  const std::size_t n = ddp.layers.forward.size();
  out.backward_end_of.assign(n, SimTime::zero());
  SimTime now;
  for (std::int64_t mb = 0; mb < ddp.micro_batches; ++mb) {
    for (std::size_t i = 0; i < n; ++i) now += scaled(ddp.layers.forward[i], factor);
    for (std::size_t i = n; i-- > 0;) {
      now += scaled(ddp.layers.backward[i], factor);
      out.backward_end_of[i] = now;
    }
  }
  out.compute = now;
}

}  // namespace

SimTime SynchronousRunResult::percentile(double p) const {
  if (iteration_times.empty()) return SimTime::zero();
  if (!(p > 0 && p <= 100)) throw InputError("percentile must be in (0, 100], got " + std::to_string(p));
  std::vector<SimTime> sorted = iteration_times;
  std::sort(sorted.begin(), sorted.end());
  const double n = static_cast<double>(sorted.size());
  const auto rank = static_cast<std::size_t>(std::ceil(p / 100 * n));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

double SynchronousRunResult::samples_per_second(std::int64_t global_batch) const {
  if (total <= SimTime::zero()) return 0;
  return static_cast<double>(global_batch) * static_cast<double>(iteration_times.size()) / total.seconds();
}

SynchronousRunResult run_synchronous(const SynchronousRunSetup& setup) {
  if (setup.ranks < 1)
    throw InputError("synchronous run: ranks must be at least 1, got " + std::to_string(setup.ranks));
  if (setup.iterations < 1) {
    throw InputError("synchronous run: iterations must be at least 1, got " + std::to_string(setup.iterations));
  }
  if (setup.stragglers.max_slow_rank() >= setup.ranks) {
    throw InputError("synchronous run: slow rank " + std::to_string(setup.stragglers.max_slow_rank()) +
                     " out of range for " + std::to_string(setup.ranks) + " ranks");
  }
  // Validates the setup and gives each bucket's AllReduce time (one call of allreduce_time per bucket).
  const IterationTimeline nominal = simulate_ddp_iteration(setup.ddp);
  const std::vector<GradientBucket>& buckets = setup.ddp.buckets.buckets;
  std::vector<SimTime> duration(buckets.size());
  for (std::size_t b = 0; b < buckets.size(); ++b) duration[b] = nominal.buckets[b].end - nominal.buckets[b].start;

  const auto ranks = static_cast<std::size_t>(setup.ranks);
  const SimTime optimizer = setup.ddp.optimizer_step;
  SynchronousRunResult out;
  out.ranks.assign(ranks, RankRunStats{});
  out.iteration_times.reserve(static_cast<std::size_t>(setup.iterations));

  std::vector<SimTime> start(ranks);  // each rank's start of the current iteration
  std::vector<RankCompute> work(ranks);
  std::vector<SimTime> backward_end(ranks);
  SimTime stream_free;   // the shared communication stream, carried across iterations
  SimTime previous_end;  // end of the previous iteration on the last rank
  for (std::int64_t it = 0; it < setup.iterations; ++it) {
    SimTime last_backward_end;
    for (std::size_t r = 0; r < ranks; ++r) {
      run_compute(setup.ddp, setup.stragglers.factor(static_cast<std::int64_t>(r), it), work[r]);
      backward_end[r] = start[r] + work[r].compute;
      last_backward_end = std::max(last_backward_end, backward_end[r]);
      out.ranks[r].compute += work[r].compute;
    }
    if (!setup.ddp.overlap) stream_free = std::max(stream_free, last_backward_end);
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      SimTime ready;  // the last rank to join
      for (std::size_t r = 0; r < ranks; ++r) {
        ready = std::max(ready, start[r] + work[r].backward_end_of[buckets[b].ready_after_layer]);
      }
      stream_free = std::max(ready, stream_free) + duration[b];
    }
    SimTime end;
    for (std::size_t r = 0; r < ranks; ++r) {
      const SimTime optimizer_start = std::max(backward_end[r], stream_free);
      out.ranks[r].straggler_wait += std::min(last_backward_end, optimizer_start) - backward_end[r];
      out.ranks[r].optimizer += optimizer;
      start[r] = optimizer_start + optimizer;
      end = std::max(end, start[r]);
    }
    out.iteration_times.push_back(end - previous_end);
    previous_end = end;
  }

  out.total = previous_end;
  for (RankRunStats& rank : out.ranks) rank.idle = out.total - rank.compute - rank.optimizer;
  out.mean = SimTime::from_ps(out.total.ps() / setup.iterations);
  out.p50 = out.percentile(50);
  out.p99 = out.percentile(99);
  return out;
}

}  // namespace syncsim
