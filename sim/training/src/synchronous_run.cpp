#include "syncsim/training/synchronous_run.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

using FaultSpan = SynchronousRunObserver::FaultSpan;

// One rank's compute in one iteration, as offsets from its start.
struct RankCompute {
  SimTime compute;                       // k x (forward + backward)
  std::vector<SimTime> backward_end_of;  // per layer, in the last micro-batch
  std::vector<SimTime> forward_start;    // per micro-batch; its backward starts at backward_start[mb]
  std::vector<SimTime> backward_start;
};

// `encode`: per layer, the compression kernels after its backward in the last micro-batch (ddp_iteration.hpp),
// slowed like the layers by a straggler's factor.
void run_compute(const DdpSetup& ddp, double factor, const std::vector<SimTime>& encode, RankCompute& out) {
  const std::size_t n = ddp.layers.forward.size();
  out.backward_end_of.assign(n, SimTime::zero());
  out.forward_start.clear();
  out.backward_start.clear();
  SimTime now;
  for (std::int64_t mb = 0; mb < ddp.micro_batches; ++mb) {
    out.forward_start.push_back(now);
    for (std::size_t i = 0; i < n; ++i) now += ddp.layers.forward[i].scaled(factor);
    out.backward_start.push_back(now);
    const bool last = mb + 1 == ddp.micro_batches;
    for (std::size_t i = n; i-- > 0;) {
      now += ddp.layers.backward[i].scaled(factor);
      if (last) now += encode[i].scaled(factor);
      out.backward_end_of[i] = now;
    }
  }
  out.compute = now;
}

// When compute of `work` at full speed, started at `start`, ends if it runs (1 + slowdown) times slower from
// `slowed_from` on (the start of the iteration's gradient synchronization; SimTime::max() while none has started).
SimTime stretched_end(SimTime start, SimTime work, SimTime slowed_from, double slowdown) {
  if (slowed_from == SimTime::max() || start + work <= slowed_from) return start + work;
  const SimTime fast = std::max(slowed_from - start, SimTime::zero());
  return start + fast + (work - fast).scaled(1 + slowdown);
}

// One rank's part of one attempt at an iteration (absolute times).
struct RankAttempt {
  std::int64_t rank = 0;  // initial numbering
  double factor = 1;
  SimTime start;
  RankCompute work;
  SimTime backward_end;
  SimTime optimizer_start;
  SimTime next_start;  // its start of the next iteration
  SimTime straggler_wait;
  SimTime interference;  // its last backward's extra time beside the AllReduces (DdpSetup::overlap_slowdown)
};

struct CollectiveAttempt {
  std::size_t bucket = 0;
  std::vector<SimTime> step_starts;  // the bucket synchronization's steps, then its end
  SimTime start() const { return step_starts.front(); }
  SimTime end() const { return step_starts.back(); }
};

// One iteration placed on the ranks' clocks; committed when no fault interrupts it.
struct IterationAttempt {
  std::int64_t iteration = 0;
  std::vector<RankAttempt> ranks;  // the ranks in the job, in rank order
  std::vector<CollectiveAttempt> collectives;
  bool averaging = false;   // local SGD's parameter averaging
  bool compressed = false;  // at or past SynchronousRunSetup::compress_from
  SimTime begin;            // the first rank's start
  SimTime end;              // the last rank's next start
  SimTime stream_free;      // the communication stream after it
};

class SynchronousEngine {
 public:
  SynchronousEngine(const SynchronousRunSetup& setup, SynchronousRunObserver* observer)
      : setup_(setup), observer_(observer) {
    simulate_ddp_iteration(setup.ddp);  // validates the setup
    DdpSetup plain = setup.ddp;
    plain.syncs.clear();
    for (const DdpSetup* ddp : std::array<const DdpSetup*, 2>{&plain, &setup.ddp}) {
      const bool compressed = ddp == &setup.ddp;
      syncs_[compressed] = bucket_syncs_of(*ddp);
      encode_[compressed] = encode_after_layers(ddp->buckets, syncs_[compressed], ddp->layers.backward.size());
    }
    for (std::int64_t r = 0; r < setup.ranks; ++r) job_.push_back(r);
    const auto ranks = static_cast<std::size_t>(setup.ranks);
    out_.ranks.assign(ranks, RankRunStats{});
    start_.assign(ranks, SimTime::zero());
    left_at_.assign(ranks, std::nullopt);
    end_of_.assign(static_cast<std::size_t>(setup.iterations), SimTime::zero());
    ranks_in_.assign(static_cast<std::size_t>(setup.iterations), 0);
    for (std::size_t f = 0; f < setup.faults.size(); ++f) fault_order_.push_back(f);
    std::stable_sort(fault_order_.begin(), fault_order_.end(),
                     [&](std::size_t a, std::size_t b) { return setup.faults[a].at < setup.faults[b].at; });
  }

  SynchronousRunResult run() {
    std::int64_t it = 0;
    while (it < setup_.iterations) {
      const IterationAttempt attempt = place(it);
      if (next_fault_ < fault_order_.size()) {
        const std::size_t f = fault_order_[next_fault_];
        const SimTime t = std::max(setup_.faults[f].at, resumed_);
        if (t < attempt.end) {
          ++next_fault_;
          it = fail(attempt, f, t);
          continue;
        }
      }
      commit(attempt);
      ++it;
      if (setup_.on_iteration) setup_.on_iteration(it);
    }
    finish();
    return std::move(out_);
  }

 private:
  // Bucket `bucket`'s synchronization started at `start`: its steps' starts, then its end.
  std::vector<SimTime> synchronize(std::size_t bucket, SimTime start, bool compressed) const {
    const BucketSync& sync = syncs_[compressed][bucket];
    std::vector<SimTime> starts{start};
    SimTime t = start;
    for (const SyncStep& step : sync.steps) {
      if (step.kind == SyncStep::Kind::compute) {
        t += step.time;
      } else if (!setup_.collective_time_at) {
        t += setup_.ddp.collective_time(step.op, step.bytes);
      } else {
        const SimTime d = setup_.collective_time_at(step.op, step.bytes, static_cast<std::int64_t>(job_.size()), t);
        if (d < SimTime::zero()) throw InputError("synchronous run: negative collective time");
        t += d;
      }
      starts.push_back(t);
    }
    return starts;
  }

  // DDP: bucket j starts when every rank has produced it and the in-order stream is free. Returns the stream's end.
  SimTime place_ddp(IterationAttempt& a, SimTime last_backward_end, SimTime stream) const {
    const DdpSetup& ddp = setup_.ddp;
    const std::vector<GradientBucket>& buckets = ddp.buckets.buckets;
    if (!ddp.overlap) stream = std::max(stream, last_backward_end);
    const bool slowed = ddp.overlap && ddp.overlap_slowdown > 0;
    // With interference the last backward is walked layer by layer beside the gradient synchronization: from the
    // first bucket's AllReduce on, every layer still to compute runs slower (docs/accuracy.md says why the whole
    // window and not only the instants bytes move). A bucket's collective starts after every rank produced it, so
    // the layers before it are walked before it is placed.
    SimTime slowed_from = SimTime::max();
    std::vector<std::size_t> next_layer;
    std::vector<SimTime> at;
    if (slowed) {
      next_layer.assign(a.ranks.size(), ddp.layers.backward.size());
      for (const RankAttempt& ra : a.ranks) at.push_back(ra.start + ra.work.backward_start.back());
    }
    const auto walk_to = [&](std::size_t layer) {
      for (std::size_t i = 0; i < a.ranks.size(); ++i) {
        RankAttempt& ra = a.ranks[i];
        for (; next_layer[i] > layer; --next_layer[i]) {
          const std::size_t l = next_layer[i] - 1;
          const SimTime work = ddp.layers.backward[l].scaled(ra.factor) + encode_[a.compressed][l].scaled(ra.factor);
          at[i] = stretched_end(at[i], work, slowed_from, ddp.overlap_slowdown);
          ra.work.backward_end_of[l] = at[i] - ra.start;
        }
      }
    };
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      if (slowed) walk_to(buckets[b].ready_after_layer);
      SimTime ready;
      for (const RankAttempt& ra : a.ranks) {
        ready = std::max(ready, ra.start + ra.work.backward_end_of[buckets[b].ready_after_layer]);
      }
      const SimTime begin = std::max(ready, stream);
      a.collectives.push_back({b, synchronize(b, begin, a.compressed)});
      stream = a.collectives.back().end();
      slowed_from = std::min(slowed_from, begin);
    }
    if (slowed) {
      walk_to(0);
      last_backward_end = SimTime::zero();
      for (std::size_t i = 0; i < a.ranks.size(); ++i) {
        RankAttempt& ra = a.ranks[i];
        ra.interference = at[i] - ra.backward_end;
        ra.backward_end = at[i];
        ra.work.compute = at[i] - ra.start;
        last_backward_end = std::max(last_backward_end, ra.backward_end);
      }
    }
    // The framework's work follows backward on the compute stream; the AllReduces run on beside it.
    for (RankAttempt& ra : a.ranks) {
      ra.optimizer_start = std::max(ra.backward_end + ddp.framework_overhead, stream);
      ra.straggler_wait = std::min(last_backward_end, ra.optimizer_start - ddp.framework_overhead) - ra.backward_end;
      ra.next_start = ra.optimizer_start + ddp.optimizer_step;
    }
    return stream;
  }

  IterationAttempt place(std::int64_t it) const {
    const DdpSetup& ddp = setup_.ddp;
    const std::vector<GradientBucket>& buckets = ddp.buckets.buckets;
    IterationAttempt a;
    a.iteration = it;
    a.compressed = setup_.sync_every == 0 && it >= setup_.compress_from;
    a.begin = SimTime::max();
    SimTime last_backward_end;
    for (const std::int64_t r : job_) {
      RankAttempt& ra = a.ranks.emplace_back();
      ra.rank = r;
      ra.factor = setup_.stragglers.factor(r, it);
      ra.start = start_[static_cast<std::size_t>(r)];
      run_compute(ddp, ra.factor, encode_[a.compressed], ra.work);
      ra.backward_end = ra.start + ra.work.compute;
      last_backward_end = std::max(last_backward_end, ra.backward_end);
      a.begin = std::min(a.begin, ra.start);
    }
    SimTime stream = stream_free_;
    if (setup_.sync_every == 0) {
      stream = place_ddp(a, last_backward_end, stream);
    } else {
      // Local SGD: the optimizer step right after backward; every K-th iteration the parameters are averaged
      // once the last rank's step has ended, bucket by bucket back to back, and everyone waits for it.
      SimTime last_step_end;
      for (RankAttempt& ra : a.ranks) {
        ra.optimizer_start = ra.backward_end + ddp.framework_overhead;
        ra.next_start = ra.optimizer_start + ddp.optimizer_step;
        last_step_end = std::max(last_step_end, ra.next_start);
      }
      a.averaging = (it + 1) % setup_.sync_every == 0;
      if (a.averaging) {
        stream = std::max(stream, last_step_end);
        for (std::size_t b = 0; b < buckets.size(); ++b) {
          a.collectives.push_back({b, synchronize(b, stream, false)});
          stream = a.collectives.back().end();
        }
        for (RankAttempt& ra : a.ranks) {
          ra.straggler_wait = last_step_end - ra.next_start;
          ra.next_start = stream;
        }
      }
    }
    a.stream_free = stream;
    for (const RankAttempt& ra : a.ranks) a.end = std::max(a.end, ra.next_start);
    return a;
  }

  // The spans of an attempt, on the observer and in the per-rank totals. An attempt cut short by a fault at
  // `cut` keeps what was done before it: a failed rank stops at `cut`; the others' forward and backward run on
  // (no collective is needed for them) until `stall_end`, and collectives and optimizer steps count only when
  // they ended before `cut`. Returns, per rank of the attempt, when it stopped working.
  std::vector<SimTime> record(const IterationAttempt& a, std::optional<SimTime> cut = std::nullopt,
                              const std::vector<std::int64_t>& failed = {}, SimTime stall_end = {}) {
    SynchronousRunObserver* obs = observer_;
    const DdpSetup& ddp = setup_.ddp;
    const std::int64_t it = a.iteration;
    std::vector<SimTime> stopped;
    for (const RankAttempt& ra : a.ranks) {
      RankRunStats& stats = out_.ranks[static_cast<std::size_t>(ra.rank)];
      const bool is_failed = std::find(failed.begin(), failed.end(), ra.rank) != failed.end();
      const SimTime limit = !cut ? SimTime::max() : (is_failed ? *cut : stall_end);
      SimTime last;
      const auto compute_span = [&](std::int64_t mb, ComputePhase phase, SimTime from, SimTime to) {
        to = std::min(to, limit);
        if (to <= from) return;
        stats.compute += to - from;
        last = to;
        if (obs) obs->on_compute(ra.rank, it, mb, phase, from, to, ra.factor);
      };
      for (std::int64_t mb = 0; mb < ddp.micro_batches; ++mb) {
        const auto m = static_cast<std::size_t>(mb);
        const SimTime backward_end =
            mb + 1 < ddp.micro_batches ? ra.start + ra.work.forward_start[m + 1] : ra.backward_end;
        compute_span(mb, ComputePhase::forward, ra.start + ra.work.forward_start[m],
                     ra.start + ra.work.backward_start[m]);
        compute_span(mb, ComputePhase::backward, ra.start + ra.work.backward_start[m], backward_end);
      }
      const SimTime step_end = ra.optimizer_start + ddp.optimizer_step;
      if (!cut || step_end <= *cut) {
        // Idle before the step (DDP: exposed communication and stragglers) and after it (local SGD averaging).
        if (ra.optimizer_start > ra.backward_end && obs) obs->on_idle(ra.rank, it, ra.backward_end, ra.optimizer_start);
        if (obs) obs->on_optimizer(ra.rank, it, ra.optimizer_start, step_end);
        if (!cut && ra.next_start > step_end && obs) obs->on_idle(ra.rank, it, step_end, ra.next_start);
        stats.optimizer += ddp.optimizer_step;
        last = step_end;
      }
      if (!cut) {
        stats.straggler_wait += ra.straggler_wait;
        // Backward's extra time beside the AllReduces is busy but not the model's compute; the framework's overhead
        // is part of the wait before the optimizer step.
        stats.compute -= ra.interference;
        stats.interference += ra.interference;
        stats.framework += ddp.framework_overhead;
      }
      stopped.push_back(last);
    }
    if (obs) {
      std::vector<std::int64_t> ranks;
      for (const RankAttempt& ra : a.ranks) ranks.push_back(ra.rank);
      for (const CollectiveAttempt& c : a.collectives) {
        if (cut && c.end() > *cut) continue;
        obs->on_bucket_sync(it, c.bucket, syncs_[a.compressed][c.bucket], c.step_starts, ranks, a.averaging);
      }
    }
    return stopped;
  }

  void commit(const IterationAttempt& a) {
    record(a);
    const auto i = static_cast<std::size_t>(a.iteration);
    end_of_[i] = a.end;
    ranks_in_[i] = static_cast<std::int64_t>(a.ranks.size());
    for (const RankAttempt& ra : a.ranks) start_[static_cast<std::size_t>(ra.rank)] = ra.next_start;
    stream_free_ = a.stream_free;
    const std::int64_t done = a.iteration + 1;
    const CheckpointPolicy& c = setup_.checkpoint;
    if ((c.every_iterations && done % *c.every_iterations == 0) || (c.every && a.end - checkpoint_time_ >= *c.every)) {
      checkpoint_iterations_ = done;
      checkpoint_time_ = a.end;
    }
  }

  // Fault f takes effect at t during attempt a; returns the iteration to run next.
  std::int64_t fail(const IterationAttempt& a, std::size_t f, SimTime t) {
    const FaultEvent& fault = setup_.faults[f];
    const std::string which = "fault " + std::to_string(f);
    for (const std::int64_t r : fault.ranks) {
      if (r < 0 || r >= setup_.ranks) {
        throw InputError(which + ": rank " + std::to_string(r) + " out of range for " + std::to_string(setup_.ranks) +
                         " ranks");
      }
      if (left_at_[static_cast<std::size_t>(r)]) {
        throw InputError(which + ": rank " + std::to_string(r) + " already left the job at an earlier fault");
      }
    }
    const SimTime detected = t + setup_.detection_timeout;
    const SimTime resumed = detected + setup_.checkpoint.restart_cost;
    const bool in_progress = t > a.begin;
    const std::vector<SimTime> stopped = record(a, t, fault.ranks, detected);

    SynchronousRunObserver* obs = observer_;
    const auto is_failed = [&](std::int64_t r) {
      return std::find(fault.ranks.begin(), fault.ranks.end(), r) != fault.ranks.end();
    };
    for (std::size_t i = 0; i < a.ranks.size(); ++i) {
      const std::int64_t r = a.ranks[i].rank;
      RankRunStats& stats = out_.ranks[static_cast<std::size_t>(r)];
      if (is_failed(r)) {
        if (obs) obs->on_fault(r, FaultSpan::down, f, t, detected);
        stats.fault_wait += detected - t;
      } else {
        const SimTime from = std::max(t, stopped[i]);
        if (obs && detected > from) obs->on_fault(r, FaultSpan::stalled, f, from, detected);
        stats.fault_wait += detected - from;
      }
    }

    FaultOutcome outcome;
    outcome.fault = f;
    outcome.at = t;
    outcome.detected = detected;
    outcome.resumed = resumed;
    outcome.downtime = resumed - t;
    std::int64_t next = a.iteration;
    if (fault.recovery == FaultPolicy::restart_from_checkpoint) {
      outcome.iterations_lost = a.iteration - checkpoint_iterations_ + (in_progress ? 1 : 0);
      outcome.lost_work = t - checkpoint_time_;
      next = checkpoint_iterations_;
      checkpoint_time_ = resumed;  // the state equals the checkpoint again
    } else {
      outcome.iterations_lost = in_progress ? 1 : 0;
      outcome.lost_work = std::max(SimTime::zero(), t - a.begin);
      for (const std::int64_t r : fault.ranks) {
        left_at_[static_cast<std::size_t>(r)] = detected;
        std::erase(job_, r);
      }
      if (job_.empty()) throw InputError(which + ": an elastic recovery needs a worker left, and none is");
    }
    for (const std::int64_t r : job_) {
      start_[static_cast<std::size_t>(r)] = resumed;
      if (resumed > detected) {
        if (obs) obs->on_fault(r, FaultSpan::restart, f, detected, resumed);
        out_.ranks[static_cast<std::size_t>(r)].fault_wait += resumed - detected;
      }
    }
    stream_free_ = resumed;
    resumed_ = resumed;
    outcome.workers_after = static_cast<std::int64_t>(job_.size());
    out_.faults.push_back(outcome);
    return next;
  }

  void finish() {
    const std::int64_t iterations = setup_.iterations;
    out_.total = end_of_.back();
    out_.iteration_times.reserve(end_of_.size());
    SimTime previous;
    for (std::size_t i = 0; i < end_of_.size(); ++i) {
      out_.iteration_times.push_back(end_of_[i] - previous);
      previous = end_of_[i];
      out_.rank_iterations += ranks_in_[i];
    }
    for (std::size_t r = 0; r < out_.ranks.size(); ++r) {
      RankRunStats& rank = out_.ranks[r];
      if (left_at_[r]) rank.fault_wait += out_.total - *left_at_[r];
      rank.idle = out_.total - rank.compute - rank.optimizer - rank.interference;
    }
    out_.mean = SimTime::from_ps(out_.total.ps() / iterations);
    out_.p50 = out_.percentile(50);
    out_.p99 = out_.percentile(99);
  }

  const SynchronousRunSetup& setup_;
  SynchronousRunObserver* observer_;  // not owned; may be null
  // Indexed by compressed (false: plain AllReduces, before compress_from): per bucket its synchronization, and
  // per layer the encoding after its backward.
  std::array<std::vector<BucketSync>, 2> syncs_;
  std::array<std::vector<SimTime>, 2> encode_;
  std::vector<std::int64_t> job_;                // ranks training now, in rank order
  std::vector<SimTime> start_;                   // per rank: its start of the next iteration
  std::vector<std::optional<SimTime>> left_at_;  // per rank: when it left the job (elastic)
  std::vector<SimTime> end_of_;                  // per iteration: its end on the last rank, latest run
  std::vector<std::int64_t> ranks_in_;           // per iteration: ranks that ran it, latest run
  std::vector<std::size_t> fault_order_;         // fault indices by time
  std::size_t next_fault_ = 0;
  SimTime stream_free_;                     // the shared communication stream, carried across iterations
  SimTime resumed_;                         // the last resumption after a fault
  std::int64_t checkpoint_iterations_ = 0;  // iterations the last checkpoint holds
  SimTime checkpoint_time_;                 // when the job's state last equalled it
  SynchronousRunResult out_;
};

}  // namespace

SimTime nearest_rank_percentile(std::vector<SimTime> times, double p) {
  if (!(p > 0 && p <= 100)) throw InputError("percentile must be in (0, 100], got " + std::to_string(p));
  if (times.empty()) return SimTime::zero();
  std::sort(times.begin(), times.end());
  const auto rank = static_cast<std::size_t>(std::ceil(p / 100 * static_cast<double>(times.size())));
  return times[std::clamp<std::size_t>(rank, 1, times.size()) - 1];
}

SimTime SynchronousRunResult::percentile(double p) const {
  return nearest_rank_percentile(iteration_times, p);
}

double SynchronousRunResult::samples_per_second(std::int64_t global_batch) const {
  if (total <= SimTime::zero()) return 0;
  return static_cast<double>(global_batch) * static_cast<double>(iteration_times.size()) / total.seconds();
}

SynchronousRunResult run_synchronous(const SynchronousRunSetup& setup, SynchronousRunObserver* observer) {
  if (setup.ranks < 1)
    throw InputError("synchronous run: ranks must be at least 1, got " + std::to_string(setup.ranks));
  if (setup.iterations < 1) {
    throw InputError("synchronous run: iterations must be at least 1, got " + std::to_string(setup.iterations));
  }
  if (setup.stragglers.max_slow_rank() >= setup.ranks) {
    throw InputError("synchronous run: slow rank " + std::to_string(setup.stragglers.max_slow_rank()) +
                     " out of range for " + std::to_string(setup.ranks) + " ranks");
  }
  if (setup.sync_every < 0) {
    throw InputError("synchronous run: sync_every must be 0 (DDP) or at least 1, got " +
                     std::to_string(setup.sync_every));
  }
  if (setup.detection_timeout < SimTime::zero() || setup.checkpoint.restart_cost < SimTime::zero()) {
    throw InputError("synchronous run: negative detection timeout or restart cost");
  }
  for (const FaultEvent& fault : setup.faults) {
    if (fault.recovery == FaultPolicy::continue_without) {
      throw InputError("synchronous run: a fault cannot continue without its ranks (every collective waits for them)");
    }
  }
  return SynchronousEngine(setup, observer).run();
}

}  // namespace syncsim
