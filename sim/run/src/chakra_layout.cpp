// A model-parallel layout's iteration to Chakra traces and back (LayoutCommunication's chakra_workload and
// imported_setup; the graph in chakra/layout_workload.hpp). The export writes what chunk_work times: each pass's
// compute and its collectives one by one, by size and group; the import costs every collective a trace names on
// the scenario's cluster exactly as setup() does (all groups of its kind at once), so that a layout's own trace gives
// the setup it was written from, to the picosecond.
#include <fmt/format.h>

#include <filesystem>
#include <string_view>

#include "chakra_layer_work.hpp"
#include "layout_communication.hpp"
#include "syncsim/chakra/execution_trace.hpp"
#include "syncsim/compute/optimizer.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim::run {

namespace {

CollectiveOp engine_op(chakra::CollectiveKind kind) {
  switch (kind) {
    case chakra::CollectiveKind::all_reduce:
      return CollectiveOp::allreduce;
    case chakra::CollectiveKind::all_gather:
      return CollectiveOp::all_gather;
    case chakra::CollectiveKind::reduce_scatter:
      return CollectiveOp::reduce_scatter;
    case chakra::CollectiveKind::all_to_all:
      return CollectiveOp::alltoall;
    case chakra::CollectiveKind::broadcast:
      return CollectiveOp::broadcast;
    case chakra::CollectiveKind::reduce:
      return CollectiveOp::reduce;
    default:
      break;
  }
  throw InputError(fmt::format("collective {} is not simulated", chakra::to_string(kind)));
}

void add_collectives(std::vector<chakra::LayoutCollective>& out, std::int64_t count, chakra::CollectiveKind op,
                     Bytes bytes, chakra::GroupRole role) {
  for (std::int64_t i = 0; i < count; ++i) out.push_back({.op = op, .bytes = bytes.value, .role = role});
}

// How a layout's traces reduce their buckets, in the words of the sharding they imply.
std::string_view traced_sharding(ShardingLevel level) {
  switch (level) {
    case ShardingLevel::none:
      return "AllReduced (no sharding)";
    case ShardingLevel::optimizer:
      return "reduce-scattered after the last micro-batch and gathered after the step (ZeRO-1)";
    case ShardingLevel::gradients:
      return "reduce-scattered after every micro-batch (ZeRO-2)";
    case ShardingLevel::full:
      return "gathered before the first forward (full sharding)";
  }
  return "";
}

// model.chakra's traces of one rank per stage (the files beside the one named, <prefix>.<rank>.et) as the layout's
// workload; InputError at model.chakra naming the file for a name of another form, a trace of another size or other
// micro-batches, and what layout_workload refuses.
chakra::LayoutWorkload read_layout_traces(const Scenario& s, const RankLayout& layout, std::int64_t expert) {
  const LayoutSizes& n = layout.sizes();
  const Located<std::string>& key = *s.model.chakra;
  return at_value(key, [&] {
    // The files of one rank per stage, beside the one named: <prefix>.<rank>.et.
    const std::filesystem::path named(key.value);
    const std::string file = named.filename().string();
    const std::size_t dot = file.size() > 4 ? file.rfind('.', file.size() - 4) : std::string::npos;
    if (dot == std::string::npos || !chakra::execution_trace_file_rank(file.substr(0, dot), file)) {
      throw InputError(
          fmt::format("'{}' is not named <prefix>.<rank>.et: a layout's traces are read one rank per "
                      "stage, beside the one named",
                      file));
    }
    const std::string prefix = file.substr(0, dot);
    std::vector<chakra::ExecutionTrace> traces;
    std::vector<std::string> sources;
    for (std::int64_t d = 0; d < n.pipeline; ++d) {
      const std::int64_t rank = layout.rank({.tensor = 0, .context = 0, .data = 0, .pipeline = d});
      const std::filesystem::path path = named.parent_path() / chakra::execution_trace_file_name(prefix, rank);
      traces.push_back(chakra::read_execution_trace(path));
      sources.push_back(path.string());
      if (traces.back().ranks != layout.ranks()) {
        throw InputError(
            fmt::format("the trace holds {} ranks, the scenario's layout {}", traces.back().ranks, layout.ranks()),
            SourceLocation{path.string(), 0, 0});
      }
    }
    chakra::LayoutWorkload read = chakra::layout_workload(traces, sources, n, expert);
    if (read.micro_batches != s.model.micro_batches) {
      throw InputError(fmt::format("the traces hold {} micro-batches per iteration, model.micro_batches {} (set it "
                                   "to the traces')",
                                   read.micro_batches, s.model.micro_batches),
                       SourceLocation{sources.front(), 0, 0});
    }
    // With one micro-batch ZeRO-2 reduces as ZeRO-1 does, and with no rank to shard over (data x context) nothing is
    // sharded.
    ShardingLevel expected = n.gradient_ranks() > 1 ? s.parallelism.sharding.value : ShardingLevel::none;
    if (expected == ShardingLevel::gradients && read.micro_batches == 1) expected = ShardingLevel::optimizer;
    if (read.sharding != expected) {
      throw InputError(fmt::format("the traces' buckets are {}, parallelism.sharding is {}",
                                   traced_sharding(read.sharding), to_string(s.parallelism.sharding.value)),
                       SourceLocation{sources.front(), 0, 0});
    }
    return read;
  });
}

}  // namespace

chakra::LayoutChunk LayoutCommunication::chakra_chunk(std::int64_t stage, std::int64_t chunk) const {
  using chakra::CollectiveKind;
  using chakra::GroupRole;
  const LayoutSizes& n = layout_.sizes();
  const std::int64_t g = chunk * n.pipeline + stage;
  const auto range = ranges_[static_cast<std::size_t>(g)];
  chakra::LayoutChunk out;
  SimTime forward;
  for (std::size_t l = range.first; l < range.second; ++l) {
    forward += layers_.forward[l];
    if (recomputed_[l]) out.backward.recompute += layers_.forward[l];
    const auto [f, b] = chakra_layer_work(context_, context_.model().layers()[l], n.tensor * n.context);
    out.forward.work = {out.forward.work.ops + f.ops, out.forward.work.bytes + f.bytes};
    out.backward.work = {out.backward.work.ops + b.ops, out.backward.work.bytes + b.bytes};
  }
  out.forward.segments = {forward};
  const std::vector<ChunkWork::Unit> units = this->units(range, &out.backward.segments);
  const bool sharded = context_.scenario().parallelism.sharding.value != ShardingLevel::none;
  for (std::size_t k = 0; k < units.size(); ++k) {
    out.units.push_back({.collective = {.op = sharded ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce,
                                        .bytes = units[k].bytes.value,
                                        .role = units[k].expert ? GroupRole::expert_data : GroupRole::data},
                         .segment = std::min(k, out.backward.segments.size() - 1),
                         .expert = units[k].expert,
                         .gather_bytes = units[k].gather_bytes() == units[k].bytes ? 0 : units[k].gathered.value});
  }
  const TransformerStructure& t = *context_.model().transformer();
  std::int64_t blocks = 0;
  for (const auto& block : t.blocks) blocks += block.first >= range.first && block.first < range.second ? 1 : 0;
  std::int64_t moe = 0;
  for (const std::size_t l : t.dispatch_layers) moe += l >= range.first && l < range.second ? 1 : 0;
  const std::int64_t again = forward_again_;
  const bool overlap = n.tensor > 1 && context_.scenario().parallelism.tp_comm_overlap.value;
  if (n.tensor > 1) {
    // Per block (beside the GEMMs under tp_comm_overlap, below), the embedding's forward and the head's backward.
    const bool first = g == 0;
    const bool last = g + 1 == static_cast<std::int64_t>(ranges_.size());
    if (!overlap) chakra_block_tensor(out.forward.collectives, out.backward.collectives, blocks);
    add_collectives(out.forward.collectives, first ? 1 : 0, CollectiveKind::all_reduce, activation_, GroupRole::tensor);
    add_collectives(out.backward.collectives, last ? 1 : 0, CollectiveKind::all_reduce, activation_, GroupRole::tensor);
  }
  if (overlap) chakra_overlaps(range, out);
  if (n.context > 1) {
    add_collectives(out.forward.collectives, blocks, CollectiveKind::all_gather, kv_, GroupRole::context);
    add_collectives(out.backward.collectives, blocks, CollectiveKind::reduce_scatter, kv_, GroupRole::context);
    add_collectives(out.backward.collectives, blocks * again, CollectiveKind::all_gather, kv_, GroupRole::context);
  }
  if (expert_ > 1) {
    add_collectives(out.forward.collectives, 2 * moe, CollectiveKind::all_to_all, routed_, GroupRole::expert);
    add_collectives(out.backward.collectives, 2 * moe * (1 + again), CollectiveKind::all_to_all, routed_,
                    GroupRole::expert);
  }
  // Transformer Engine's FP8 amax all-reduce at each pass's end (layout_amax.cpp).
  if (const auto [amax_forward, amax_backward] = amax_bytes(range); amax_forward > 0) {
    add_collectives(out.forward.collectives, 1, CollectiveKind::all_reduce, Bytes{amax_forward}, amax_role());
    add_collectives(out.backward.collectives, 1, CollectiveKind::all_reduce, Bytes{amax_backward}, amax_role());
  }
  return out;
}

void LayoutCommunication::chakra_block_tensor(std::vector<chakra::LayoutCollective>& forward,
                                              std::vector<chakra::LayoutCollective>& backward,
                                              std::int64_t blocks) const {
  using chakra::CollectiveKind;
  using chakra::GroupRole;
  const std::int64_t again = forward_again_;
  if (!quantized_gathers()) {
    // Per block 2 forward, 2 x (1 + again) backward; under selective_op the two all-gathers again, and Megatron's
    // wgrad re-gathers (regathers()).
    add_collectives(forward, 2 * blocks, CollectiveKind::all_reduce, activation_, GroupRole::tensor);
    add_collectives(backward, (2 * (1 + again) + regathers()) * blocks, CollectiveKind::all_reduce, activation_,
                    GroupRole::tensor);
    return;
  }
  // Per block each pass's two all-gathers and two reduce-scatters (the forward's again under full recomputation),
  // the backward's of the output gradients, and its inputs' gathers again.
  add_collectives(forward, 2 * blocks, CollectiveKind::all_gather, gathered_, GroupRole::tensor);
  add_collectives(forward, 2 * blocks, CollectiveKind::reduce_scatter, activation_, GroupRole::tensor);
  add_collectives(backward, 2 * blocks, CollectiveKind::all_gather, tensor_message(true, true), GroupRole::tensor);
  add_collectives(backward, 2 * (1 + again) * blocks, CollectiveKind::reduce_scatter, activation_, GroupRole::tensor);
  add_collectives(backward, 2 * (again + regathers()) * blocks, CollectiveKind::all_gather, gathered_,
                  GroupRole::tensor);
}

chakra::LayoutWorkload LayoutCommunication::chakra_workload() const {
  const Scenario& s = context_.scenario();
  const ParallelismConfig& p = s.parallelism;
  const LayoutSizes& n = layout_.sizes();
  chakra::LayoutWorkload w;
  w.name = s.name;
  w.sizes = n;
  w.expert = expert_;
  w.schedule = p.schedule.value;
  w.micro_batches = s.model.micro_batches;
  w.chunks = chunks_;
  w.sharding = n.gradient_ranks() > 1 ? p.sharding.value : ShardingLevel::none;
  w.transfer_bytes = n.pipeline > 1 ? (activation_.value + n.tensor - 1) / n.tensor : 0;
  w.amax = amax_ != AmaxGroup::none && amax_role() == chakra::GroupRole::amax;
  const std::vector<SimTime> steps = optimizer_steps();
  const std::int64_t step_bytes = optimizer_step_bytes(s.model.optimizer.value);
  for (std::int64_t d = 0; d < n.pipeline; ++d) {
    chakra::LayoutStage& stage = w.stages.emplace_back();
    for (std::int64_t c = 0; c < chunks_; ++c) stage.chunks.push_back(chakra_chunk(d, c));
    // The engine's step of a rank: its shard's when sharded (model_parallel_run.cpp, finish_stage).
    const SimTime full = steps[static_cast<std::size_t>(d)];
    const bool sharded = w.sharding != ShardingLevel::none;
    const std::int64_t shards = sharded ? n.gradient_ranks() : 1;
    stage.step = SimTime::from_ps((full.ps() + shards - 1) / shards);
    // One operation per parameter of the rank's share, its step bytes each (memory-bound, as the DDP export's).
    const std::int64_t mine = stage_params(d) / n.tensor / shards;
    stage.step_work = {mine, static_cast<std::uint64_t>(mine * step_bytes)};
  }
  return w;
}

void LayoutCommunication::chakra_rank_collectives(std::vector<std::vector<chakra::LayoutCollective>>& forward,
                                                  std::vector<std::vector<chakra::LayoutCollective>>& backward) const {
  using chakra::CollectiveKind;
  using chakra::GroupRole;
  const LayoutSizes& n = layout_.sizes();
  forward.assign(layers_.forward.size(), {});
  backward.assign(layers_.forward.size(), {});
  if (forward.empty()) return;
  // As rank_layer_times adds them: each block's on its last layer, the embedding's on the first, the head's on the
  // last.
  const std::int64_t again = forward_again_;
  for (const auto& block : context_.model().transformer()->blocks) {
    const std::size_t at = block.second - 1;
    if (n.tensor > 1) chakra_block_tensor(forward[at], backward[at], 1);
    if (n.context > 1) {
      add_collectives(forward[at], 1, CollectiveKind::all_gather, kv_, GroupRole::context);
      add_collectives(backward[at], 1, CollectiveKind::reduce_scatter, kv_, GroupRole::context);
      add_collectives(backward[at], again, CollectiveKind::all_gather, kv_, GroupRole::context);
    }
  }
  if (n.tensor > 1) {
    add_collectives(forward.front(), 1, CollectiveKind::all_reduce, activation_, GroupRole::tensor);
    add_collectives(backward.back(), 1, CollectiveKind::all_reduce, activation_, GroupRole::tensor);
  }
}

std::pair<LayerTimes, LayerTimes> LayoutCommunication::imported_rank_collectives(const chakra::DdpWorkload& w) {
  uses_.clear();  // the links' traffic is the trace's collectives'
  const auto per_iteration = static_cast<double>(w.micro_batches);
  std::pair<LayerTimes, LayerTimes> out;  // tensor, context
  for (LayerTimes* t : {&out.first, &out.second}) {
    t->forward.assign(w.times.forward.size(), SimTime::zero());
    t->backward.assign(w.times.forward.size(), SimTime::zero());
  }
  for (const bool backward : {false, true}) {
    const auto& lists = backward ? w.backward_inline : w.forward_inline;
    for (std::size_t l = 0; l < lists.size() && l < w.times.forward.size(); ++l) {
      for (const chakra::LayoutCollective& c : lists[l]) {
        LayerTimes& kind = c.role == chakra::GroupRole::context ? out.second : out.first;
        (backward ? kind.backward : kind.forward)[l] += imported_time(c, per_iteration);
      }
    }
  }
  return out;
}

SimTime LayoutCommunication::imported_time(const chakra::LayoutCollective& c, double per_iteration) {
  const auto groups = chakra::role_groups(layout_, c.role, expert_);
  if (c.role == chakra::GroupRole::tensor &&
      (c.op == chakra::CollectiveKind::all_gather || c.op == chakra::CollectiveKind::reduce_scatter)) {
    // A tensor all-gather or reduce-scatter moves half what an AllReduce of its buffer moves (tensor_overlap.hpp).
    const SimTime allreduce = timed("tensor", CollectiveOp::allreduce, Bytes{c.bytes}, groups, per_iteration / 2);
    return SimTime::from_ps(allreduce.ps() / 2);
  }
  // The FP8 amaxes' all-reduce on the stage-wide groups (an expert group's ALL_REDUCE: where the expert group is the
  // stage's, its all-to-alls are ALL_TO_ALLs) is timed as the scenario's own (layout_amax.cpp).
  const bool amax = c.role == chakra::GroupRole::amax ||
                    (c.role == chakra::GroupRole::expert && c.op == chakra::CollectiveKind::all_reduce);
  if (amax && !amax_groups_.empty() && amax_trace_role() == chakra::GroupRole::amax) return amax_time(Bytes{c.bytes});
  return timed(chakra::to_string(c.role), engine_op(c.op), Bytes{c.bytes}, groups, per_iteration);
}

ModelParallelSetup LayoutCommunication::imported_setup() {
  const Scenario& s = context_.scenario();
  const LayoutSizes& n = layout_.sizes();
  const chakra::LayoutWorkload w = read_layout_traces(s, layout_, expert_);
  // The links' traffic is the trace's collectives', not the scenario model's the constructor simulated.
  uses_.clear();
  ModelParallelSetup out;
  out.schedule = w.schedule;
  out.stages = n.pipeline;
  out.chunks = w.chunks;
  out.micro_batches = w.micro_batches;
  out.sharding = w.sharding;
  out.data = n.data;
  out.context = n.context;
  out.iterations = s.training.iterations;
  const bool sharded = w.sharding != ShardingLevel::none && n.gradient_ranks() > 1;
  const double per_pass = static_cast<double>(w.micro_batches) / static_cast<double>(n.pipeline);
  for (const chakra::LayoutStage& stage : w.stages) {
    auto& row = out.work.emplace_back();
    for (const chakra::LayoutChunk& chunk : stage.chunks) {
      ChunkWork& cw = row.emplace_back();
      cw.forward_compute = chunk.forward.compute();
      cw.backward_compute = chunk.backward.compute();
      cw.backward_recompute = chunk.backward.recompute;
      cw.forward_tensor += imported_overlaps(chunk.forward, per_pass);
      cw.backward_tensor += imported_overlaps(chunk.backward, per_pass);
      for (const bool backward : {false, true}) {
        for (const chakra::LayoutCollective& c : (backward ? chunk.backward : chunk.forward).collectives) {
          const SimTime t = imported_time(c, per_pass);
          // An ALL_REDUCE on the stage-wide groups is the FP8 amaxes' (on an expert group too: where that group is
          // the stage's, its all-to-alls are ALL_TO_ALLs).
          const bool amax = c.role == chakra::GroupRole::amax ||
                            (c.role == chakra::GroupRole::expert && c.op == chakra::CollectiveKind::all_reduce);
          SimTime* kinds[] = {backward ? &cw.backward_tensor : &cw.forward_tensor,
                              backward ? &cw.backward_context : &cw.forward_context,
                              backward ? &cw.backward_expert : &cw.forward_expert};
          SimTime& slot = amax ? amax_slot(cw, backward)
                               : *kinds[c.role == chakra::GroupRole::tensor    ? 0
                                        : c.role == chakra::GroupRole::context ? 1
                                                                               : 2];
          slot += t;
        }
      }
      // A bucket is ready at its segment's end, as a share of the backward compute (units() computes it so).
      const SimTime total = cw.backward_compute;
      for (const chakra::LayoutUnit& u : chunk.units) {
        SimTime done;
        for (std::size_t k = 0; k <= u.segment && k < chunk.backward.segments.size(); ++k) {
          done += chunk.backward.segments[k];
        }
        cw.units.push_back({Bytes{u.collective.bytes}, total > SimTime::zero() ? done.seconds() / total.seconds() : 1.0,
                            u.expert, Bytes{u.gather_bytes}});
      }
    }
    // The engine divides the step by d x c when sharded: the trace's is the rank's share.
    out.optimizer_step.push_back(sharded ? stage.step * n.gradient_ranks() : stage.step);
  }
  add_communication(out, Bytes{w.transfer_bytes});
  return out;
}

}  // namespace syncsim::run
