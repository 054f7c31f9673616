#include "layout_communication.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "link_report.hpp"
#include "syncsim/compute/memory_check.hpp"
#include "syncsim/compute/pipeline_split.hpp"
#include "syncsim/compute/precision.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/training/bucket_plan.hpp"

namespace syncsim::run {

namespace {

RankLayout layout_of(const ResolvedScenario& context) {
  const ParallelismConfig& p = context.scenario().parallelism;
  const std::int64_t model_parallel = p.tensor.value * p.pipeline.value * p.context.value;
  return RankLayout({.tensor = p.tensor.value,
                     .context = p.context.value,
                     .data = context.workers() / model_parallel,
                     .pipeline = p.pipeline.value});
}

// The pairs (stage k rank, stage k + 1 rank with the same coordinates) of every even boundary k.
std::vector<std::vector<std::size_t>> transfer_pairs(const RankLayout& layout) {
  std::vector<std::vector<std::size_t>> pairs;
  const std::int64_t per_stage = layout.ranks() / layout.sizes().pipeline;
  for (std::int64_t k = 0; k + 1 < layout.sizes().pipeline; k += 2) {
    for (std::int64_t r = k * per_stage; r < (k + 1) * per_stage; ++r) {
      pairs.push_back({static_cast<std::size_t>(r), static_cast<std::size_t>(r + per_stage)});
    }
  }
  return pairs;
}

}  // namespace

Bytes LayoutCommunication::message(std::int64_t width, std::int64_t parts, double element) const {
  const TransformerStructure& t = *context_.model().transformer();
  if (element == 0) element = static_cast<double>(element_bytes(context_.precision()));
  const double bytes = static_cast<double>(context_.batch()) * static_cast<double>(t.sequence) *
                       static_cast<double>(width) * element / static_cast<double>(parts);
  if (!(bytes < 0x1p62)) {
    throw context_.scenario().model.batch_per_gpu.error(
        fmt::format("one micro-batch's activations ({:.3g} bytes) pass 2^62 bytes", bytes));
  }
  return Bytes{std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(bytes)))};
}

LayoutCommunication::LayoutCommunication(ResolvedScenario& context, CollectiveFloor floor)
    : context_(context), floor_(std::move(floor)), layout_(layout_of(context)) {
  const Scenario& s = context.scenario();
  const ParallelismConfig& p = s.parallelism;
  if (!context.model().transformer()) {
    const Located<std::int64_t>& at = p.tensor.value > 1 ? p.tensor : p.pipeline.value > 1 ? p.pipeline : p.context;
    throw at.error(
        fmt::format("model '{}' has no transformer blocks: model-parallel layouts need a transformer (a catalog one or "
                    "model.transformer), whose blocks say where Megatron's collectives and stage cuts go",
                    context.model().name()));
  }
  chunks_ = p.schedule.value == PipelineSchedule::interleaved && p.virtual_stages ? p.virtual_stages->value : 1;
  ranges_ = at_pipeline_split(
      p, [&] { return pipeline_chunk_ranges(context.model(), p.pipeline.value, chunks_, p.pipeline_split()); });
  layers_ = context.layer_times();
  recomputed_ = context.recomputed();
  const TransformerStructure& t = *context.model().transformer();
  const LayoutSizes& n = layout_.sizes();
  activation_ = message(t.hidden, n.context);
  kv_ = message(2 * t.kv_width, n.tensor);
  const auto blocks = static_cast<double>(t.blocks.size());
  const auto m = static_cast<double>(s.model.micro_batches);
  const auto stages = static_cast<double>(n.pipeline);
  forward_again_ = p.activation_checkpointing.value == ActivationCheckpointing::full ? 1 : 0;
  gathers_again_ = p.activation_checkpointing.value == ActivationCheckpointing::selective_op ? 1 : 0;
  const auto again = static_cast<double>(forward_again_);
  setup_tensor(m, stages);
  setup_amax();
  expert_ = p.expert.value;
  if (expert_ > 1) {
    if (n.context > 1) throw p.expert.error("expert parallelism beside context parallelism is not simulated yet");
    at_value(p.expert, [&] {
      check_experts(context.model(), expert_);
      expert_groups_ = layout_.expert_groups(expert_);
    });
    const auto moe = static_cast<double>(t.dispatch_layers.size());
    // Dispatch and combine forward, their gradients backward, and forward again under full checkpointing.
    expert_ops_per_iteration_ = m * moe * 2 * (2 + again) / stages;
    routed_ = message(t.hidden * t.experts_per_token, n.tensor * n.context);
    expert_alltoall_ = timed("expert", CollectiveOp::alltoall, routed_, expert_groups_, expert_ops_per_iteration_);
  }
  if (n.context > 1) {
    context_ops_per_iteration_ = m * blocks * (2 + again) / stages;
    const auto groups = layout_.groups(GroupKind::context);
    context_gather_ = timed("context", CollectiveOp::all_gather, kv_, groups, m * blocks * (1 + again) / stages);
    context_scatter_ = timed("context", CollectiveOp::reduce_scatter, kv_, groups, m * blocks / stages);
  }
}

SimTime LayoutCommunication::timed(std::string_view kind, CollectiveOp op, Bytes bytes,
                                   const std::vector<std::vector<std::size_t>>& groups, double per_iteration) {
  if (floor_) return floor_(op, bytes, groups);
  const CollectiveOutcome& outcome = context_.group_collective(op, bytes, groups);
  uses_.push_back({std::string(kind), &outcome, per_iteration});
  return outcome.time;
}

std::vector<ChunkWork::Unit> LayoutCommunication::units(std::pair<std::size_t, std::size_t> range,
                                                        std::vector<SimTime>* segments) const {
  const Scenario& s = context_.scenario();
  const std::vector<Layer>& layers = context_.model().layers();
  SimTime total;
  for (std::size_t l = range.first; l < range.second; ++l) total += layers_.backward[l];
  // Two buffers, as Megatron keeps them: the dense gradients and (with expert parallelism) the routed experts'.
  std::int64_t bytes[2] = {0, 0};
  // The reductions move the gradient buffer's type: FP32 in Megatron's layout unless grad_reduce_in_fp32 is false.
  // The all-gathers move the parameters: 16-bit, FP8 for the scaled GEMMs' weights under Megatron's FP8 parameters.
  const bool fp8_gather = s.parallelism.fp8_all_gather.value;
  // FSDP under a pipeline accumulates the unsynced gradients in its FP32 reduce dtype and reduces them so
  // (memory_check.cpp), as torchtitan's mixed_precision_reduce does.
  const bool fsdp_accumulates = s.parallelism.sharding.value == ShardingLevel::full && layout_.sizes().pipeline > 1;
  const bool fp32_reduce = context_.megatron_layout() ? s.parallelism.grad_reduce_in_fp32.value : fsdp_accumulates;
  constexpr std::int64_t kFp32Bytes = 4;
  const std::int64_t element = element_bytes(context_.precision());
  const std::int64_t gradient_element = fp32_reduce ? std::max(element, kFp32Bytes) : element;
  std::int64_t gathered[2] = {0, 0};
  std::vector<ChunkWork::Unit> out;
  SimTime done;
  SimTime cut;  // where the last segment ended
  // Without overlap (Megatron's overlap_grad_reduce off) every bucket waits for the chunk's whole backward.
  const bool overlap = s.training.overlap;
  for (std::size_t l = range.second; l-- > range.first;) {
    const bool expert = is_expert(l);
    const std::int64_t parts = layout_.sizes().tensor * (expert ? expert_ : 1);
    const std::int64_t whole = layers[l].params * gradient_element;
    std::int64_t& held = bytes[expert ? 1 : 0];
    held += (whole + parts - 1) / parts;
    const std::int64_t gather = weight_gather_bytes(layers[l], context_.precision(), fp8_gather).value;
    gathered[expert ? 1 : 0] += (gather + parts - 1) / parts;
    done += layers_.backward[l];
    if (held >= s.training.bucket_size.value) {
      const double ready = overlap && total > SimTime::zero() ? done.seconds() / total.seconds() : 1.0;
      out.push_back({Bytes{held}, ready, expert, Bytes{std::exchange(gathered[expert ? 1 : 0], 0)}});
      held = 0;
      if (segments != nullptr && overlap) segments->push_back(done - std::exchange(cut, done));
    }
  }
  // The rest of the backward after the last complete bucket (all of it when none completes early).
  if (segments != nullptr && (segments->empty() || done > cut)) segments->push_back(done - cut);
  for (const bool expert : {false, true}) {
    const int i = expert ? 1 : 0;
    if (bytes[i] > 0) out.push_back({Bytes{bytes[i]}, 1.0, expert, Bytes{gathered[i]}});
  }
  return out;
}

bool LayoutCommunication::is_expert(std::size_t layer) const {
  if (expert_ < 2) return false;
  const auto& layers = context_.model().transformer()->expert_layers;
  return std::binary_search(layers.begin(), layers.end(), layer);
}

ChunkWork LayoutCommunication::chunk_work(std::int64_t stage, std::int64_t chunk) {
  const LayoutSizes& n = layout_.sizes();
  const std::int64_t g = chunk * n.pipeline + stage;
  const auto range = ranges_[static_cast<std::size_t>(g)];
  ChunkWork w;
  for (std::size_t l = range.first; l < range.second; ++l) {
    w.forward_compute += layers_.forward[l];
    w.backward_compute += layers_.backward[l];
    if (recomputed_[l]) w.backward_recompute += layers_.forward[l];
  }
  std::int64_t blocks = 0;
  const auto& all_blocks = context_.model().transformer()->blocks;
  for (std::size_t b = 0; b < all_blocks.size(); ++b) {
    if (all_blocks[b].first < range.first || all_blocks[b].first >= range.second) continue;
    ++blocks;
    if (block_tensor_.empty()) continue;
    w.forward_tensor += block_tensor_[b].forward;
    w.backward_tensor += block_tensor_[b].backward;
  }
  const bool first_chunk = g == 0;
  const bool last_chunk = g + 1 == static_cast<std::int64_t>(ranges_.size());
  // Full checkpointing recomputes each block's forward in backward, its collectives included.
  const std::int64_t again = forward_again_;
  if (first_chunk) w.forward_tensor += tensor_allreduce_;
  if (last_chunk) w.backward_tensor += tensor_allreduce_;
  w.forward_context = context_gather_ * blocks;
  w.backward_context = context_scatter_ * blocks + context_gather_ * (blocks * again);
  std::int64_t moe = 0;
  for (const std::size_t l : context_.model().transformer()->dispatch_layers) {
    if (l >= range.first && l < range.second) ++moe;
  }
  w.forward_expert = expert_alltoall_ * (2 * moe);
  w.backward_expert = expert_alltoall_ * (2 * moe * (1 + again));
  add_amax(w, range);
  w.units = units(range);
  return w;
}

ModelParallelSetup LayoutCommunication::setup() {
  const Scenario& s = context_.scenario();
  const LayoutSizes& n = layout_.sizes();
  ModelParallelSetup out;
  out.schedule = s.parallelism.schedule.value;
  out.stages = n.pipeline;
  out.chunks = chunks_;
  out.micro_batches = s.model.micro_batches;
  out.sharding = s.parallelism.sharding.value;
  out.data = n.data;
  out.context = n.context;
  out.iterations = s.training.iterations;
  for (std::int64_t d = 0; d < n.pipeline; ++d) {
    auto& row = out.work.emplace_back();
    for (std::int64_t c = 0; c < chunks_; ++c) row.push_back(chunk_work(d, c));
  }
  out.optimizer_step = optimizer_steps();
  add_communication(out, Bytes{(activation_.value + n.tensor - 1) / n.tensor});
  return out;
}

std::int64_t LayoutCommunication::stage_params(std::int64_t d) const {
  const std::vector<Layer>& layers = context_.model().layers();
  std::int64_t out = 0;
  for (std::int64_t c = 0; c < chunks_; ++c) {
    const auto range = ranges_[static_cast<std::size_t>(c * layout_.sizes().pipeline + d)];
    for (std::size_t l = range.first; l < range.second; ++l) {
      out += is_expert(l) ? (layers[l].params + expert_ - 1) / expert_ : layers[l].params;
    }
  }
  return out;
}

std::vector<SimTime> LayoutCommunication::optimizer_steps() const {
  const LayoutSizes& n = layout_.sizes();
  const double params = static_cast<double>(std::max<std::int64_t>(1, context_.model().params()));
  std::vector<SimTime> out;
  for (std::int64_t d = 0; d < n.pipeline; ++d) {
    out.push_back(context_.optimizer_step().scaled(static_cast<double>(stage_params(d)) / params /
                                                   static_cast<double>(n.tensor)));
  }
  return out;
}

void LayoutCommunication::add_communication(ModelParallelSetup& out, Bytes transfer) {
  const LayoutSizes& n = layout_.sizes();
  if (n.pipeline > 1) {
    const double crossings = 2.0 * static_cast<double>(out.micro_batches * (n.pipeline * chunks_ - 1));
    out.transfer = timed("pipeline", CollectiveOp::broadcast, transfer, transfer_pairs(layout_),
                         crossings / static_cast<double>(n.pipeline / 2));
  }
  if (n.gradient_ranks() > 1) {
    // Routed experts' units exist only with expert parallelism.
    const auto expert_groups =
        expert_ > 1 ? layout_.expert_data_groups(expert_) : std::vector<std::vector<std::size_t>>{};
    out.expert_data = expert_ > 1 ? n.data / expert_ : n.data;
    const bool sharded = out.sharding != ShardingLevel::none;
    struct Asked {
      SimTime time;
      std::size_t use = 0;  // its entry in uses_ (none under a floor)
    };
    std::map<std::tuple<CollectiveOp, std::int64_t, bool>, Asked> asked;
    for (const auto& row : out.work) {
      for (const ChunkWork& w : row) {
        for (const ChunkWork::Unit& u : w.units) {
          if (u.expert && out.expert_data < 2) continue;
          for (const CollectiveOp op : sharded ? std::vector{CollectiveOp::reduce_scatter, CollectiveOp::all_gather}
                                               : std::vector{CollectiveOp::allreduce}) {
            // A bucket size seen before is not asked again (at a frontier layout each ask would copy and compare
            // thousands of groups): its use runs once more, as fill_links would sum it.
            const Bytes bytes = u.moved_by(op);
            const std::tuple key{op, bytes.value, u.expert};
            const double per_iteration = 1.0 / static_cast<double>(n.pipeline);
            if (const auto seen = asked.find(key); seen != asked.end()) {
              if (!floor_) uses_[seen->second.use].per_iteration += per_iteration;
              continue;
            }
            const std::size_t use = uses_.size();
            asked[key] = {u.expert ? timed("data", op, bytes, expert_groups, per_iteration)
                                   : gradient_collective(op, bytes, per_iteration),
                          use};
          }
        }
      }
    }
    out.data_collective = [asked = std::move(asked)](CollectiveOp op, Bytes bytes, bool expert) {
      return asked.at({op, bytes.value, expert}).time;
    };
  }
}

LayerTimes LayoutCommunication::rank_layer_times(bool tensor, bool context) const {
  LayerTimes out = layers_;  // already one rank's share (ResolvedScenario::layer_times)
  if (out.forward.empty()) return out;
  const std::int64_t again = forward_again_;
  const auto& blocks = context_.model().transformer()->blocks;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const std::size_t at = blocks[b].second - 1;
    if (tensor && !block_tensor_.empty()) {
      out.forward[at] += block_tensor_[b].forward;
      out.backward[at] += block_tensor_[b].backward;
    }
    if (context) {
      out.forward[at] += context_gather_;
      out.backward[at] += context_scatter_ + context_gather_ * again;
    }
  }
  if (tensor) {
    out.forward.front() += tensor_allreduce_;
    out.backward.back() += tensor_allreduce_;
  }
  return out;
}

SimTime LayoutCommunication::data_collective(CollectiveOp op, Bytes bytes, double per_iteration) {
  return gradient_collective(op, bytes, per_iteration);
}

SimTime LayoutCommunication::gradient_collective(CollectiveOp op, Bytes bytes, double per_iteration) {
  const LayoutSizes& n = layout_.sizes();
  if (gradient_timing_groups_.empty()) gradient_timing_groups_ = layout_.gradient_timing_groups();
  if (n.context == 1 || n.data == 1) return timed("data", op, bytes, gradient_timing_groups_, per_iteration);
  // Over d x c ranks each GPU sends (dc - 1)/dc of the buffer per pass where a d-rank ring sends (d - 1)/d: the same
  // rails carry it, so the context ranks' data-parallel groups time the buffer and both the time and the links'
  // bytes grow by the ratio (the buffer itself is not resized: a size the ranks do not divide evenly would take the
  // collective off the simulator's uniform fast path).
  const auto d = static_cast<double>(n.data);
  const auto dc = d * static_cast<double>(n.context);
  const double scale = ((dc - 1) / dc) / ((d - 1) / d);
  return timed("data", op, bytes, gradient_timing_groups_, per_iteration * scale).scaled(scale);
}

LayoutReport LayoutCommunication::layout_report(const TrainingReport& r, double bubble_fraction) const {
  const Scenario& s = context_.scenario();
  const ParallelismConfig& p = s.parallelism;
  LayoutReport l{.tensor = layout_.sizes().tensor,
                 .context = layout_.sizes().context,
                 .pipeline = layout_.sizes().pipeline,
                 .data = layout_.sizes().data,
                 .expert = p.expert.value,
                 .schedule = std::string(to_string(p.schedule.value)),
                 .virtual_stages = p.virtual_stages ? p.virtual_stages->value : 1,
                 .sharding = std::string(to_string(p.sharding.value)),
                 .bubble_fraction = bubble_fraction};
  l.model_flops_utilization = r.utilization.model_flops_utilization;
  l.hardware_flops_utilization = r.utilization.hardware_flops_utilization;
  l.tensor_overlap = tensor_overlap_report();
  return l;
}

std::vector<GroupCommunication> LayoutCommunication::group_reports(const LayoutExposure& exposure) const {
  const LayoutSizes& n = layout_.sizes();
  std::vector<GroupCommunication> out;
  if (n.gradient_ranks() > 1) {
    const bool amax = amax_ == AmaxGroup::stage;
    out.push_back({.group = "data",
                   .collectives = exposure.data_collectives + (amax ? amax_collectives() : ""),
                   .bytes_per_gpu = exposure.data_bytes_per_gpu + (amax ? amax_bus_bytes() : 0),
                   .exposed = exposure.data});
  }
  if (n.tensor > 1) {
    // Megatron's backward gathers the column-parallel inputs again (keeps_shard_): one allreduce's worth more.
    const bool overlap = context_.scenario().parallelism.tp_comm_overlap.value;
    const std::string pairs = quantized_gathers()
                                  ? "all_gather (quantized inputs) + reduce_scatter x 2 per block, micro-batch "
                                    "and direction"
                              : overlap ? "all_gather + reduce_scatter x 2 per block, micro-batch and direction"
                                        : "allreduce x 2 per block, micro-batch and direction";
    const std::string again = keeps_shard_ ? ", the backward's inputs all-gathered again" : "";
    out.push_back(
        {.group = "tensor",
         .collectives = pairs + again + (overlap ? ", beside the GEMMs (tp_comm_overlap)" : "") +
                        (fp8_buffer_scatters_ > 0 ? ", the forward's reduce-scatters from FP8 userbuffers" : "") +
                        (amax_ == AmaxGroup::tensor ? amax_collectives() : ""),
         .bytes_per_gpu = (tensor_ops_per_iteration_ * static_cast<double>(activation_.value) +
                           tensor_gather_ops_per_iteration_ * static_cast<double>(gathered_.value)) *
                              bus_factor(CollectiveOp::allreduce, static_cast<std::size_t>(n.tensor)) +
                          (amax_ == AmaxGroup::tensor ? amax_bus_bytes() : 0),
         .exposed = exposure.tensor});
  }
  if (n.context > 1) {
    out.push_back({.group = "context",
                   .collectives = std::string("all_gather of K, V (forward) + reduce_scatter (backward) per block and "
                                              "micro-batch") +
                                  (amax_ == AmaxGroup::context ? amax_collectives() : ""),
                   .bytes_per_gpu = context_ops_per_iteration_ * static_cast<double>(kv_.value) *
                                        bus_factor(CollectiveOp::all_gather, static_cast<std::size_t>(n.context)) +
                                    (amax_ == AmaxGroup::context ? amax_bus_bytes() : 0),
                   .exposed = exposure.context});
  }
  if (expert_ > 1) {
    out.push_back({.group = "expert",
                   .collectives = "alltoall x 2 (dispatch, combine) per MoE block, micro-batch and direction",
                   .bytes_per_gpu = expert_ops_per_iteration_ * static_cast<double>(routed_.value) *
                                    bus_factor(CollectiveOp::alltoall, static_cast<std::size_t>(expert_)),
                   .exposed = exposure.expert});
  }
  if (n.pipeline > 1) {
    const double crossings =
        2.0 * static_cast<double>(context_.scenario().model.micro_batches * (n.pipeline * chunks_ - 1));
    out.push_back({.group = "pipeline",
                   .collectives = "send/recv of each micro-batch's activation (forward) and gradient (backward)",
                   .bytes_per_gpu = crossings * static_cast<double>((activation_.value + n.tensor - 1) / n.tensor) /
                                    static_cast<double>(n.pipeline),
                   .exposed = exposure.pipeline});
  }
  return out;
}

void LayoutCommunication::fill_links(TrainingReport& report, std::int64_t iterations) const {
  // Per directed link, the traffic of `iterations` iterations of the collectives placed: of all of them, and of each
  // kind ("data", "tensor", ...). One pass, each use's share of a link scaled once (a frontier layout's data-parallel
  // collectives cross a few hundred thousand links each), added in the uses' order to both sums.
  // A bucket's collective is one use per stage and chunk, all of the same outcome: each outcome counted once, with
  // the times it runs summed, in the order of its first use.
  std::vector<Use> merged;
  std::map<std::pair<std::string_view, const CollectiveOutcome*>, std::size_t> merged_index;
  for (const Use& use : uses_) {
    const auto [it, added] = merged_index.emplace(std::pair{std::string_view(use.kind), use.outcome}, merged.size());
    if (added) {
      merged.push_back(use);
    } else {
      merged[it->second].per_iteration += use.per_iteration;
    }
  }
  const std::size_t links = context_.topology().link_count();
  std::vector<LinkUsage> all(links);
  std::map<std::string, std::vector<LinkUsage>, std::less<>> by_kind;
  for (const Use& use : merged) {
    std::vector<LinkUsage>& kind = by_kind[use.kind];
    if (kind.empty()) kind.resize(links);
    const double times = use.per_iteration * static_cast<double>(iterations);
    for (const LinkTraffic& link : use.outcome->links) {
      const double bytes = link.bytes_carried * times;
      const SimTime busy = link.busy_time.scaled(times);
      for (LinkUsage* u : {&all[link.link.value()], &kind[link.link.value()]}) {
        u->bytes_carried += bytes;
        u->busy_time += busy;
      }
    }
  }
  report.busiest_links = busiest_links(context_.topology(), all, report.total);
  for (GroupCommunication& g : report.group_communication) {
    const auto kind = by_kind.find(g.group);
    if (kind == by_kind.end()) continue;
    const auto busiest = busiest_links(context_.topology(), kind->second, report.total);
    if (!busiest.empty()) g.busiest_link = busiest.front();
  }
}

}  // namespace syncsim::run
