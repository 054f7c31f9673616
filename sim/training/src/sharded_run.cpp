#include "syncsim/training/sharded_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

// About as many spans as the DDP engine's trace keeps (sync_trace.hpp's cap): a long run keeps its last iterations.
constexpr std::int64_t kTracedSpans = 1024;

void check_setup(const ShardedRunSetup& s) {
  if (s.level == ShardingLevel::none) throw InputError("sharded run: nothing is sharded (use the DDP engine)");
  if (s.ranks < 2) throw InputError(fmt::format("sharded run: needs at least 2 ranks, got {}", s.ranks));
  if (s.iterations < 1) throw InputError(fmt::format("sharded run: iterations must be positive, got {}", s.iterations));
  if (s.micro_batches < 1) {
    throw InputError(fmt::format("sharded run: micro-batches must be positive, got {}", s.micro_batches));
  }
  if (s.units.buckets.empty()) throw InputError("sharded run: no units");
  if (s.layers.forward.size() != s.layers.backward.size() || s.layers.forward.empty()) {
    throw InputError("sharded run: forward and backward layer times disagree");
  }
  for (const GradientBucket& unit : s.units.buckets) {
    if (unit.layers.empty()) throw InputError("sharded run: a unit without layers");
    for (const std::size_t l : unit.layers) {
      if (l >= s.layers.forward.size()) throw InputError("sharded run: a unit names a layer the model lacks");
    }
  }
  if (!s.gather_bytes.empty() && s.gather_bytes.size() != s.units.buckets.size()) {
    throw InputError("sharded run: gather bytes must be given per unit");
  }
  if (!s.collective_time) throw InputError("sharded run: no collective time");
  if (s.replicas < 1) throw InputError(fmt::format("sharded run: replicas must be positive, got {}", s.replicas));
  if (s.replicas > 1 && !s.replica_allreduce_time) throw InputError("sharded run: no replicas' allreduce time");
  const LayerTimes& comm = s.layer_communication;
  if (!comm.forward.empty() &&
      (comm.forward.size() != s.layers.forward.size() || comm.backward.size() != s.layers.backward.size())) {
    throw InputError("sharded run: the layers' communication must be given per layer");
  }
}

// One iteration's clocks, placed op by op on the in-order stream.
class ShardedTimeline {
 public:
  explicit ShardedTimeline(const ShardedRunSetup& setup) : s_(setup) {
    const std::size_t n = s_.layers.forward.size();
    std::vector<std::optional<std::size_t>> owner(n);
    for (std::size_t b = 0; b < s_.units.buckets.size(); ++b) {
      for (const std::size_t l : s_.units.buckets[b].layers) owner[l] = b;
      first_backward_.push_back(
          *std::max_element(s_.units.buckets[b].layers.begin(), s_.units.buckets[b].layers.end()));
      time_[0].push_back(checked(s_.collective_time(CollectiveOp::reduce_scatter, s_.units.buckets[b].bytes)));
      gather_.push_back(s_.gather_bytes.empty() ? s_.units.buckets[b].bytes : s_.gather_bytes[b]);
      time_[1].push_back(checked(s_.collective_time(CollectiveOp::all_gather, gather_.back())));
      const Bytes shard{(s_.units.buckets[b].bytes.value + s_.ranks - 1) / s_.ranks};
      shard_.push_back(shard);
      time_[2].push_back(s_.replicas > 1 ? checked(s_.replica_allreduce_time(shard)) : SimTime::zero());
    }
    // A layer without parameters belongs to the unit of the last layer with parameters before it (the first such
    // layer's unit for those ahead of it): it runs inside that unit's FSDP module.
    std::optional<std::size_t> current;
    for (std::size_t l = 0; l < n && !current; ++l) current = owner[l];
    for (std::size_t l = 0; l < n; ++l) {
      if (owner[l]) current = owner[l];
      unit_of_.push_back(current.value_or(0));
    }
    step_ = SimTime::from_ps((s_.optimizer_step.ps() + s_.ranks - 1) / s_.ranks);
    for (std::size_t l = 0; l < n; ++l) nominal_ += s_.layers.forward[l] + s_.layers.backward[l];
    // The spans kept for the trace: every iteration's while that stays small, else the last ones only.
    const auto per_iteration = static_cast<std::int64_t>(3 * s_.units.buckets.size()) * s_.micro_batches;
    traced_from_ = std::max<std::int64_t>(0, s_.iterations - std::max<std::int64_t>(1, kTracedSpans / per_iteration));
  }

  ShardedRunResult run() {
    ShardedRunResult out;
    gathered_.assign(s_.units.buckets.size(), SimTime::zero());
    SimTime start;
    for (std::int64_t it = 0; it < s_.iterations; ++it) {
      pace(s_.slowest ? s_.slowest(it) : 1.0);
      out.nominal_compute += nominal_ * s_.micro_batches;
      const SimTime end = s_.level == ShardingLevel::full ? full_iteration(it, start, out) : zero12(it, start, out);
      out.iteration_times.push_back(end - start);
      start = end;
    }
    out.total = start;
    out.exposed = out.total - out.compute - out.optimizer - out.interference;
    const double share = static_cast<double>(s_.ranks - 1) / static_cast<double>(s_.ranks);
    const double replicas = static_cast<double>(s_.replicas);
    out.bytes_per_gpu_per_iteration =
        (share * bus_bytes_ + 2 * (replicas - 1) / replicas * replica_bytes_) / static_cast<double>(s_.iterations);
    return out;
  }

 private:
  static SimTime checked(SimTime t) {
    if (t < SimTime::zero()) throw InputError("sharded run: negative collective time");
    return t;
  }

  // The layers at the slowest rank's factor: their compute slowed, their inline communication not.
  void pace(double factor) {
    if (factor == pace_ && !layers_.forward.empty()) return;
    pace_ = factor;
    layers_ = s_.layers;
    compute_ = SimTime::zero();
    const LayerTimes& comm = s_.layer_communication;
    const auto slowed = [&](SimTime t, const std::vector<SimTime>& fixed, std::size_t l) {
      if (factor == 1.0) return t;
      const SimTime inline_comm = fixed.empty() ? SimTime::zero() : fixed[l];
      return (t - inline_comm).scaled(factor) + inline_comm;
    };
    for (std::size_t l = 0; l < layers_.forward.size(); ++l) {
      layers_.forward[l] = slowed(s_.layers.forward[l], comm.forward, l);
      layers_.backward[l] = slowed(s_.layers.backward[l], comm.backward, l);
      compute_ += layers_.forward[l] + layers_.backward[l];
    }
  }

  // Places `op` of unit b on the stream once `ready`, and after a reduce-scatter the replicas' allreduce of its
  // shard on a stream of its own (HSDP); returns the end on the main stream.
  SimTime place(std::int64_t it, CollectiveOp op, std::size_t b, SimTime ready, ShardedRunResult& out) {
    const SimTime begin = std::max(ready, stream_);
    stream_ = begin + time_[op == CollectiveOp::all_gather ? 1 : 0][b];
    const Bytes bytes = op == CollectiveOp::all_gather ? gather_[b] : s_.units.buckets[b].bytes;
    bus_bytes_ += static_cast<double>(bytes.value);
    if (it >= traced_from_) out.collectives.push_back({it, op, b, bytes, begin, stream_});
    if (op == CollectiveOp::reduce_scatter && s_.replicas > 1) {
      const SimTime across = std::max(stream_, replica_stream_);
      replica_stream_ = across + time_[2][b];
      replica_bytes_ += static_cast<double>(shard_[b].value);
      if (it >= traced_from_) {
        out.collectives.push_back({it, CollectiveOp::allreduce, b, shard_[b], across, replica_stream_});
      }
    }
    return stream_;
  }

  // Every unit's parameters, first layers first (the last bucket holds them).
  void gather_all(std::int64_t it, SimTime ready, ShardedRunResult& out) {
    for (std::size_t b = s_.units.buckets.size(); b-- > 0;) {
      gathered_[b] = place(it, CollectiveOp::all_gather, b, ready, out);
    }
  }

  SimTime forward(std::int64_t it, SimTime now, ShardedRunResult& out) {
    const SimTime begin = now;
    for (std::size_t l = 0; l < layers_.forward.size(); ++l) {
      now = std::max(now, gathered_[unit_of_[l]]) + layers_.forward[l];
    }
    if (it >= traced_from_) out.compute_spans.push_back({it, false, false, begin, now});
    return now;
  }

  SimTime step(std::int64_t it, SimTime ready, ShardedRunResult& out) {
    const SimTime begin = std::max({ready, stream_, replica_stream_});
    out.optimizer += step_;
    if (it >= traced_from_) out.compute_spans.push_back({it, false, true, begin, begin + step_});
    return begin + step_;
  }

  // ZeRO-1/2: the gathers of the parameters the previous step updated (issued as it ended), forward on each unit
  // once it arrived, backward reduce-scattering each unit as it is produced, the sharded step after the last.
  // Micro-batches accumulate gradients: ZeRO-1 keeps them whole and reduce-scatters after the last micro-batch only
  // (Megatron's distributed optimizer), ZeRO-2 keeps only its shard and reduce-scatters after every one (DeepSpeed).
  SimTime zero12(std::int64_t it, SimTime start, ShardedRunResult& out) {
    gather_all(it, start, out);
    SimTime now = start;
    for (std::int64_t mb = 0; mb < s_.micro_batches; ++mb) {
      now = forward(it, now, out);
      const bool reduces = s_.level == ShardingLevel::gradients || mb + 1 == s_.micro_batches;
      const SimTime backward_begin = now;
      std::size_t next = 0;
      for (std::size_t l = s_.layers.backward.size(); l-- > 0;) {
        now += backward(l, reduces && next > 0, out);
        for (; reduces && s_.overlap && next < s_.units.buckets.size() && s_.units.buckets[next].ready_after_layer == l;
             ++next) {
          place(it, CollectiveOp::reduce_scatter, next, now, out);
        }
      }
      for (; reduces && next < s_.units.buckets.size(); ++next) place(it, CollectiveOp::reduce_scatter, next, now, out);
      out.compute += compute_;
      if (it >= traced_from_) out.compute_spans.push_back({it, true, false, backward_begin, now});
    }
    return step(it, now, out);
  }

  // ZeRO-3: gathers before forward and again before backward (one unit ahead), reduce-scatters after; every
  // micro-batch does all three (FSDP without no_sync, which would keep whole gradients).
  SimTime full_iteration(std::int64_t it, SimTime start, ShardedRunResult& out) {
    SimTime now = start;
    for (std::int64_t mb = 0; mb < s_.micro_batches; ++mb) now = full_micro_batch(it, now, out);
    return step(it, now, out);
  }

  SimTime full_micro_batch(std::int64_t it, SimTime start, ShardedRunResult& out) {
    gather_all(it, start, out);
    SimTime now = forward(it, start, out);
    const SimTime backward_begin = now;
    const std::size_t units = s_.units.buckets.size();
    std::vector<SimTime> gathered(units);
    gathered[0] = place(it, CollectiveOp::all_gather, 0, now, out);
    std::size_t entering = 0;  // the next unit whose first backward layer is ahead
    std::size_t next_rs = 0;
    for (std::size_t l = s_.layers.backward.size(); l-- > 0;) {
      if (entering < units && l == first_backward_[entering]) {
        now = std::max(now, gathered[entering]);
        // Prefetch: the next unit's gather goes on the stream before this unit's reduce-scatter.
        if (entering + 1 < units) gathered[entering + 1] = place(it, CollectiveOp::all_gather, entering + 1, now, out);
        ++entering;
      }
      now += backward(l, true, out);
      for (; s_.overlap && next_rs < units && s_.units.buckets[next_rs].ready_after_layer == l; ++next_rs) {
        place(it, CollectiveOp::reduce_scatter, next_rs, now, out);
      }
    }
    for (; next_rs < units; ++next_rs) place(it, CollectiveOp::reduce_scatter, next_rs, now, out);
    if (it >= traced_from_) out.compute_spans.push_back({it, true, false, backward_begin, now});
    out.compute += compute_;
    return now;
  }

  // Layer l's backward, slowed beside the collectives when `beside` (the extra counted as interference).
  SimTime backward(std::size_t l, bool beside, ShardedRunResult& out) const {
    const SimTime nominal = layers_.backward[l];
    if (!beside || s_.overlap_slowdown <= 0) return nominal;
    const SimTime slowed = nominal.scaled(1 + s_.overlap_slowdown);
    out.interference += slowed - nominal;
    return slowed;
  }

  const ShardedRunSetup& s_;
  std::vector<std::size_t> unit_of_;         // per layer, the unit whose parameters it uses
  std::vector<std::size_t> first_backward_;  // per unit, its highest layer: where its backward starts
  std::vector<SimTime> time_[3];             // per unit: reduce-scatter, all-gather, the replicas' allreduce
  std::vector<Bytes> shard_;                 // per unit: a rank's shard of it
  std::vector<Bytes> gather_;                // per unit: what its weight all-gather moves
  std::vector<SimTime> gathered_;
  SimTime stream_;
  SimTime replica_stream_;  // HSDP: the replicas' allreduces, each after its unit's reduce-scatter
  SimTime step_;
  SimTime nominal_;               // one micro-batch's forward and backward at factor 1
  SimTime compute_;               // the same at the iteration's pace
  double pace_ = 1.0;             // the slowest rank's factor that layers_ holds
  LayerTimes layers_;             // the layers at pace_
  double bus_bytes_ = 0;          // every reduce-scatter's and all-gather's unit bytes, summed
  double replica_bytes_ = 0;      // every replicas' allreduce's shard bytes, summed
  std::int64_t traced_from_ = 0;  // the first iteration whose spans are kept
};

}  // namespace

ShardedRunResult run_sharded(const ShardedRunSetup& setup) {
  check_setup(setup);
  return ShardedTimeline(setup).run();
}

}  // namespace syncsim
