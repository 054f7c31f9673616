#include "syncsim/training/model_parallel_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <utility>

#include "syncsim/core/input_error.hpp"
#include "syncsim/training/replica_classes.hpp"

namespace syncsim {

namespace {

// About as many passes as the other engines' traces keep spans: a long run keeps its last iterations.
constexpr std::int64_t kTracedPasses = 1024;
// The iterations the causal reruns simulate: the first iteration has no gathers to overlap, the later ones do.
constexpr std::int64_t kCausalIterations = 4;

void check_setup(const ModelParallelSetup& s) {
  if (s.stages < 1 || s.chunks < 1 || s.micro_batches < 1 || s.data < 1 || s.context < 1 || s.iterations < 1) {
    throw InputError("model-parallel run: sizes and iterations must be positive");
  }
  bool ok = s.work.size() == static_cast<std::size_t>(s.stages) &&
            s.optimizer_step.size() == static_cast<std::size_t>(s.stages);
  for (const auto& row : s.work) ok = ok && row.size() == static_cast<std::size_t>(s.chunks);
  if (!ok) throw InputError("model-parallel run: work and steps must be given per stage and chunk");
  if (s.data * s.context > 1 && !s.data_collective) {
    throw InputError("model-parallel run: no data-parallel collective time");
  }
  if (s.group < 1) throw InputError("model-parallel run: the tensor x context group must be positive");
  if (s.stragglers.max_slow_rank() >= s.group * s.data * s.stages) {
    throw InputError(fmt::format("model-parallel run: slow rank {} is beyond the layout's {} ranks",
                                 s.stragglers.max_slow_rank(), s.group * s.data * s.stages));
  }
}

// Which kinds of communication a run treats as free (the causal reruns).
struct FreeKinds {
  bool tensor = false;
  bool context = false;
  bool pipeline = false;
  bool data = false;
  bool expert = false;
};

// A span of time, and how much of a sorted, disjoint list of them another sorted, disjoint list covers.
using Interval = std::pair<SimTime, SimTime>;
SimTime overlap_of(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  SimTime covered;
  std::size_t j = 0;
  for (const Interval& x : a) {
    while (j < b.size() && b[j].second <= x.first) ++j;
    for (std::size_t k = j; k < b.size() && b[k].first < x.second; ++k) {
      covered += std::min(x.second, b[k].second) - std::max(x.first, b[k].first);
    }
  }
  return covered;
}

// Per iteration and stage, the passes' extra time beside the stage's data-parallel collectives.
using InterferenceTable = std::vector<std::vector<SimTime>>;

class Timeline {
 public:
  // `fixed`: the interference to charge instead of measuring it (the causal rerun without data-parallel traffic keeps
  // the full run's, which that traffic caused but which is not its wait).
  Timeline(const ModelParallelSetup& setup, FreeKinds free, std::int64_t iterations, bool record,
           const InterferenceTable* fixed = nullptr)
      : s_(setup), free_kinds_(free), iterations_(iterations), record_(record), fixed_(fixed) {
    const auto p = static_cast<std::size_t>(s_.stages);
    device_free_.assign(p, SimTime::zero());
    stream_.assign(p, SimTime::zero());
    beside_.assign(p, {});
    // Kept for the iterations a causal rerun repeats only: a long run's table would grow with it.
    interference_.assign(static_cast<std::size_t>(std::min(iterations_, kCausalIterations)), std::vector<SimTime>(p));
    ready_.assign(p, std::vector<SimTime>(static_cast<std::size_t>(s_.chunks)));
    out_.stages.resize(p);
    const std::int64_t per_iteration = s_.stages * s_.chunks * s_.micro_batches * 2;
    traced_from_ = std::max<std::int64_t>(0, iterations_ - std::max<std::int64_t>(1, kTracedPasses / per_iteration));
  }

  // The ranks a dense gradient is reduced over: data x context.
  std::int64_t gradient_ranks() const { return s_.data * s_.context; }
  bool sharded() const { return s_.sharding != ShardingLevel::none && gradient_ranks() > 1; }

  ModelParallelResult run() {
    SimTime last_end;
    for (std::int64_t it = 0; it < iterations_; ++it) {
      const SimTime end = iteration(it);
      out_.iteration_times.push_back(end - last_end);
      last_end = end;
    }
    out_.total = last_end;
    for (ModelParallelResult::Stage& st : out_.stages) {
      st.bubble = out_.total - st.compute - st.tensor - st.context - st.expert - st.data_inline - st.data_wait -
                  st.optimizer - st.interference - st.straggler_wait;
      st.data_bytes_per_iteration /= static_cast<double>(iterations_);
    }
    return std::move(out_);
  }

  const InterferenceTable& interference() const { return interference_; }

 private:
  // The pipeline of a replica whose stage d computes `factors[d]` times slower.
  PipelineTimingSetup pipeline_setup(const std::vector<double>& factors) const {
    PipelineTimingSetup t;
    t.schedule = s_.schedule;
    t.stages = s_.stages;
    t.micro_batches = s_.micro_batches;
    t.chunks = s_.chunks;
    t.transfer = free_kinds_.pipeline ? SimTime::zero() : s_.transfer;
    t.device_free = device_free_;
    t.parameters_ready = ready_;
    for (std::size_t d = 0; d < s_.work.size(); ++d) {
      auto& forward = t.forward.emplace_back();
      auto& backward = t.backward.emplace_back();
      for (const ChunkWork& w : s_.work[d]) {
        forward.push_back(slowed(w.forward_compute, factors[d]) + inline_comm(w, false));
        backward.push_back(slowed(w.backward_compute, factors[d]) + inline_comm(w, true));
      }
    }
    return t;
  }

  static SimTime slowed(SimTime t, double factor) { return factor == 1.0 ? t : t.scaled(factor); }

  // The collectives inside a pass, less the kinds this run treats as free.
  SimTime inline_comm(const ChunkWork& w, bool backward) const {
    SimTime t;
    if (!free_kinds_.tensor) t += backward ? w.backward_tensor : w.forward_tensor;
    if (!free_kinds_.context) t += backward ? w.backward_context : w.forward_context;
    if (!free_kinds_.expert) t += backward ? w.backward_expert : w.forward_expert;
    if (!free_kinds_.data) t += backward ? w.backward_data : w.forward_data;
    return t;
  }

  // Places a data-parallel collective on stage d's stream once `ready`; returns its end.
  SimTime place(std::int64_t it, std::size_t d, CollectiveOp op, std::size_t chunk, const ChunkWork::Unit& unit,
                SimTime ready) {
    const Bytes bytes = unit.moved_by(op);
    const std::int64_t ranks = unit.expert ? s_.expert_data : gradient_ranks();
    const SimTime begin = std::max(ready, stream_[d]);
    const SimTime length = free_kinds_.data || ranks < 2 ? SimTime::zero() : s_.data_collective(op, bytes, unit.expert);
    if (length < SimTime::zero()) throw InputError("model-parallel run: negative collective time");
    stream_[d] = begin + length;
    if (length > SimTime::zero()) beside_[d].emplace_back(begin, stream_[d]);
    if (ranks > 1) {
      out_.stages[d].data_bytes_per_iteration +=
          static_cast<double>(bytes.value) * bus_factor(op, static_cast<std::size_t>(ranks));
    }
    if (record_ && it >= traced_from_ && ranks > 1) {
      out_.collectives.push_back({it, static_cast<std::int64_t>(d), op, chunk, bytes, begin, stream_[d]});
    }
    return stream_[d];
  }

  // When `share` of a backward pass has run in every replica class: the span picked from each by `span_of`.
  template <typename SpanOf>
  static SimTime when_done(const std::vector<PipelineTiming>& timings, SpanOf span_of, double share) {
    SimTime ready;
    for (const PipelineTiming& t : timings) {
      const PipelineTiming::Span& span = span_of(t);
      ready = std::max(ready, span.start + (span.end - span.start).scaled(std::clamp(share, 0.0, 1.0)));
    }
    return ready;
  }

  // Stage d's gradient buckets reduced: after each chunk's last backward, or under ZeRO-2, which keeps only its shard
  // of them, after every backward pass (each bucket once the last replica has it).
  void reduce_gradients(std::int64_t it, std::size_t d, const std::vector<PipelineTiming>& timings) {
    const bool sharded = this->sharded();
    const CollectiveOp op = sharded ? CollectiveOp::reduce_scatter : CollectiveOp::allreduce;
    if (sharded && s_.sharding == ShardingLevel::gradients) {
      const std::vector<PipelineTiming::Span>& passes = timings.front().passes[d];
      for (std::size_t i = 0; i < passes.size(); ++i) {
        if (!passes[i].pass.backward) continue;
        const auto c = static_cast<std::size_t>(passes[i].pass.chunk);
        for (const ChunkWork::Unit& unit : s_.work[d][c].units) {
          place(it, d, op, c, unit,
                when_done(
                    timings, [&](const PipelineTiming& t) -> const PipelineTiming::Span& { return t.passes[d][i]; },
                    unit.ready));
        }
      }
      return;
    }
    const auto bucket_ready = [&](std::size_t c, double share) {
      return when_done(
          timings, [&](const PipelineTiming& t) -> const PipelineTiming::Span& { return t.last_backward[d][c]; },
          share);
    };
    std::vector<std::size_t> chunks(static_cast<std::size_t>(s_.chunks));
    std::iota(chunks.begin(), chunks.end(), std::size_t{0});
    std::sort(chunks.begin(), chunks.end(),
              [&](std::size_t a, std::size_t b) { return bucket_ready(a, 1) < bucket_ready(b, 1); });
    for (const std::size_t c : chunks) {
      for (const ChunkWork::Unit& unit : s_.work[d][c].units) place(it, d, op, c, unit, bucket_ready(c, unit.ready));
    }
  }

  // Stage d after its passes in every replica class: its gradients reduced, its step, its parameters gathered;
  // returns the step's end.
  SimTime finish_stage(std::int64_t it, std::size_t d, const std::vector<PipelineTiming>& timings) {
    const bool sharded = this->sharded();
    SimTime last_end;
    for (const PipelineTiming& t : timings) last_end = std::max(last_end, t.last_end[d]);
    reduce_gradients(it, d, timings);
    ModelParallelResult::Stage& st = out_.stages[d];
    const SimTime slowed_end = last_end + interference(it, d, timings);
    const SimTime step_start = std::max(slowed_end, stream_[d]);
    st.interference += slowed_end - last_end;
    st.data_wait += step_start - slowed_end;
    const SimTime full_step = s_.optimizer_step[d];
    const std::int64_t shards = gradient_ranks();
    const SimTime step = sharded ? SimTime::from_ps((full_step.ps() + shards - 1) / shards) : full_step;
    const SimTime step_end = step_start + step;
    st.optimizer += step;
    if (record_ && it >= traced_from_) out_.steps.push_back({it, static_cast<std::int64_t>(d), step_start, step_end});
    // Fully sharded parameters are gathered for the next forward only: none after the last step.
    const bool last_of_full = s_.sharding == ShardingLevel::full && it + 1 == iterations_;
    if (sharded && !last_of_full) {
      gather(it, d, step_end);
    } else {
      for (auto& ready : ready_[d]) ready = step_end;
    }
    return step_end;
  }

  // What stage d's passes lose beside its data-parallel collectives this iteration (the last gathers of the previous
  // one and its own reductions): s times the time they overlap, in the replica class that ends last that way.
  SimTime interference(std::int64_t it, std::size_t d, const std::vector<PipelineTiming>& timings) {
    std::vector<Interval> beside = std::move(beside_[d]);
    beside_[d].clear();
    const auto i = static_cast<std::size_t>(it);
    if (fixed_) return (*fixed_)[i][d];
    SimTime extra;
    if (s_.overlap_slowdown > 0 && !beside.empty()) {
      if (!std::is_sorted(beside.begin(), beside.end())) std::sort(beside.begin(), beside.end());  // one stream
      SimTime last_end;
      SimTime slowed_end;
      for (const PipelineTiming& t : timings) {
        std::vector<Interval> passes;  // one stage's passes: one after another
        passes.reserve(t.passes[d].size());
        for (const PipelineTiming::Span& span : t.passes[d]) passes.emplace_back(span.start, span.end);
        if (!std::is_sorted(passes.begin(), passes.end())) std::sort(passes.begin(), passes.end());
        last_end = std::max(last_end, t.last_end[d]);
        slowed_end = std::max(slowed_end, t.last_end[d] + overlap_of(passes, beside).scaled(s_.overlap_slowdown));
      }
      extra = slowed_end - last_end;
    }
    if (i < interference_.size()) interference_[i][d] = extra;
    return extra;
  }

  // Stage d's parameters all-gathered chunk by chunk from `from`, first layers first (the units in reverse); each
  // chunk's next forward waits for its gathers.
  void gather(std::int64_t it, std::size_t d, SimTime from) {
    for (std::size_t c = 0; c < ready_[d].size(); ++c) {
      ready_[d][c] = from;
      const auto& units = s_.work[d][c].units;
      for (auto u = units.rbegin(); u != units.rend(); ++u) {
        ready_[d][c] = place(it, d, CollectiveOp::all_gather, c, *u, from);
      }
    }
  }

  SimTime iteration(std::int64_t it) {
    // Fully sharded parameters start as shards: the first iteration gathers them too.
    if (it == 0 && s_.sharding == ShardingLevel::full && sharded()) {
      for (std::size_t d = 0; d < ready_.size(); ++d) gather(it, d, SimTime::zero());
    }
    const std::vector<ReplicaClass> classes = replica_classes(s_.stragglers, s_.group, s_.data, s_.stages, it);
    std::vector<PipelineTiming> timings;
    std::size_t slowest = 0;
    for (const ReplicaClass& c : classes) {
      timings.push_back(time_pipeline(pipeline_setup(c.stage_factors)));
      if (timings.back().end > timings[slowest].end) slowest = timings.size() - 1;
    }
    out_.replica_classes = std::max(out_.replica_classes, classes.size());
    const PipelineTiming& t = timings[slowest];
    SimTime end;
    for (std::size_t d = 0; d < t.passes.size(); ++d) {
      // A stage that starts late because its first chunk's parameters were still being gathered waits on data
      // parallelism, not on the pipeline.
      const auto first_chunk = static_cast<std::size_t>(t.passes[d].front().pass.chunk);
      const SimTime late = std::min(ready_[d][first_chunk], t.first_start[d]) - device_free_[d];
      if (late > SimTime::zero()) out_.stages[d].data_wait += late;
      add_stage_work(d, classes, timings);
      if (record_ && it >= traced_from_) {
        for (const PipelineTiming::Span& span : t.passes[d]) {
          out_.passes.push_back({it, static_cast<std::int64_t>(d), span.pass, span.start, span.end});
        }
      }
      device_free_[d] = finish_stage(it, d, timings);
      end = std::max(end, device_free_[d]);
    }
    out_.bubble_fraction = t.bubble_fraction;
    return end;
  }

  // Stage d's passes of one iteration in its totals: the mean over the replicas of each class's compute (at its
  // factor) and of its wait for the slowest replica's last pass.
  void add_stage_work(std::size_t d, const std::vector<ReplicaClass>& classes,
                      const std::vector<PipelineTiming>& timings) {
    ModelParallelResult::Stage& st = out_.stages[d];
    const auto m = s_.micro_batches;
    for (const ChunkWork& w : s_.work[d]) {
      if (!free_kinds_.tensor) st.tensor += (w.forward_tensor + w.backward_tensor) * m;
      if (!free_kinds_.context) st.context += (w.forward_context + w.backward_context) * m;
      if (!free_kinds_.expert) st.expert += (w.forward_expert + w.backward_expert) * m;
      if (!free_kinds_.data) st.data_inline += (w.forward_data + w.backward_data) * m;
    }
    SimTime last_end;
    for (const PipelineTiming& t : timings) last_end = std::max(last_end, t.last_end[d]);
    SimTime compute;
    SimTime recompute;
    SimTime wait;
    for (std::size_t k = 0; k < classes.size(); ++k) {
      const double f = classes[k].stage_factors[d];
      const double share = static_cast<double>(classes[k].replicas) / static_cast<double>(s_.data);
      const auto mean = [&](SimTime x) { return classes.size() == 1 ? x : x.scaled(share); };
      for (const ChunkWork& w : s_.work[d]) {
        compute += mean((slowed(w.forward_compute, f) + slowed(w.backward_compute, f)) * m);
        recompute += mean(slowed(w.backward_recompute, f) * m);
      }
      wait += mean(last_end - timings[k].last_end[d]);
    }
    st.compute += compute;
    st.recompute += recompute;
    st.straggler_wait += wait;
  }

  const ModelParallelSetup& s_;
  FreeKinds free_kinds_;
  std::int64_t iterations_;
  bool record_;
  const InterferenceTable* fixed_;
  std::vector<std::vector<Interval>> beside_;  // per stage: its collectives since its last step, begin and end
  InterferenceTable interference_;
  std::vector<SimTime> device_free_;
  std::vector<SimTime> stream_;              // per stage: its data-parallel stream's last end
  std::vector<std::vector<SimTime>> ready_;  // [stage][chunk]: parameters there for the next forward
  std::int64_t traced_from_ = 0;
  ModelParallelResult out_;
};

SimTime short_run(const ModelParallelSetup& s, FreeKinds free, const InterferenceTable* fixed = nullptr) {
  return Timeline(s, free, std::min(s.iterations, kCausalIterations), false, fixed).run().total;
}

}  // namespace

ModelParallelResult run_model_parallel(const ModelParallelSetup& setup) {
  check_setup(setup);
  Timeline full(setup, {}, setup.iterations, true);
  ModelParallelResult out = full.run();
  const std::int64_t n = std::min(setup.iterations, kCausalIterations);
  InterferenceTable interference = full.interference();
  SimTime base = out.total;
  if (setup.iterations > kCausalIterations) {
    Timeline first(setup, {}, n, false);
    base = first.run().total;
    interference = first.interference();
  }
  const auto lost = [&](FreeKinds free) {
    const SimTime without = short_run(setup, free, free.data ? &interference : nullptr);
    return SimTime::from_ps(std::max<std::int64_t>(0, (base - without).ps()) / n);
  };
  out.exposed_tensor = lost({.tensor = true});
  out.exposed_context = lost({.context = true});
  out.exposed_pipeline = lost({.pipeline = true});
  out.exposed_data = lost({.data = true});
  out.exposed_expert = lost({.expert = true});
  // A stage's own work does not change when the transfers are free, so its waiting shrinks by what the iteration
  // loses to them: that much of its waiting is the transfers', the rest the bubble.
  for (ModelParallelResult::Stage& st : out.stages) {
    st.pipeline = std::min(st.bubble, out.exposed_pipeline * setup.iterations);
    st.bubble -= st.pipeline;
  }
  return out;
}

}  // namespace syncsim
