#include "syncsim/compute/memory_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "syncsim/compute/allocator_model.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

constexpr std::int64_t kMaxMicroBatches = std::int64_t{1} << 20;
constexpr std::int64_t kFp32Bytes = 4;
// The loss's transient bytes per logit beside its kept FP32 softmax (memory_check.hpp): Megatron's vocabulary-
// parallel cross entropy keeps the 16-bit logits beside their FP32 copy (cross_entropy.py, calculate_logits_max:
// vocab_parallel_logits.float(), the rest in place); PyTorch's cross_entropy backward holds the loss's gradient and
// the log-softmax input's gradient, two FP32 tensors (torchtitan's train.py deletes the 16-bit logits first).
constexpr std::int64_t kPytorchLossBytesPerLogit = 2 * kFp32Bytes;
// Under tensor parallelism torchtitan's loss is PyTorch's loss_parallel (torch/distributed/tensor/parallel/loss.py),
// whose backward over the vocabulary-sharded logits runs as separate ops, (zeros + exp(x)) x grad: beside the kept
// log-softmax x it holds the zeros, exp(x) and their sum, then the product in place of exp(x); three FP32 tensors.
constexpr std::int64_t kLossParallelBytesPerLogit = 3 * kFp32Bytes;

void check_layout(std::int64_t batch, const MemoryLayout& layout) {
  if (batch < 1) throw InputError(fmt::format("batch size must be positive, got {}", batch));
  const std::pair<const char*, std::int64_t> sizes[] = {{"tensor", layout.tensor},
                                                        {"pipeline", layout.pipeline},
                                                        {"context", layout.context},
                                                        {"shard", layout.shards},
                                                        {"micro-batch", layout.micro_batches},
                                                        {"expert", layout.expert},
                                                        {"virtual stage", layout.virtual_stages}};
  for (const auto& [what, size] : sizes) {
    if (size < 1) throw InputError(fmt::format("{} size must be positive, got {}", what, size));
  }
  if (layout.micro_batches > kMaxMicroBatches) {
    throw InputError(fmt::format("at most {} micro-batches, got {}", kMaxMicroBatches, layout.micro_batches));
  }
  std::int64_t chunks = 0;
  if (__builtin_mul_overflow(layout.pipeline, layout.virtual_stages, &chunks)) {
    throw InputError(fmt::format("{} pipeline stages of {} virtual stages each are more chunks than any model has",
                                 layout.pipeline, layout.virtual_stages));
  }
}

// Where a stage may end: after any layer, or for a transformer only between blocks (the embedding stays with the
// first block, the head with the last), as Megatron cuts its pipelines.
std::vector<std::size_t> cut_points(const ModelSpec& model) {
  std::vector<std::size_t> cuts;
  if (const auto& t = model.transformer()) {
    for (std::size_t b = 1; b < t->blocks.size(); ++b) cuts.push_back(t->blocks[b].first);
  } else {
    for (std::size_t l = 1; l < model.layers().size(); ++l) cuts.push_back(l);
  }
  return cuts;
}

// Byte counts past 2^63 (an absurd batch of a huge model) are clamped there: such a total is "does not fit", by a
// shortfall that is still enormous, rather than a wrapped number.
std::int64_t times(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  return __builtin_mul_overflow(a, b, &out) ? std::numeric_limits<std::int64_t>::max() : out;
}
std::int64_t plus(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  return __builtin_add_overflow(a, b, &out) ? std::numeric_limits<std::int64_t>::max() : out;
}

// Bytes counted in a fractional size per element (FP8's and FP4's operands), rounded up and clamped as times() is.
std::int64_t ceil_bytes(double bytes) {
  constexpr double kPastInt64 = 9.2e18;  // below 2^63: the cast back is defined
  return bytes >= kPastInt64 ? std::numeric_limits<std::int64_t>::max() : static_cast<std::int64_t>(std::ceil(bytes));
}

// Ceiling division: a rank holds the larger share when the count does not divide.
std::int64_t share(std::int64_t value, std::int64_t parts) {
  return (value + parts - 1) / parts;
}

// Per sample, what a stage keeps for backward: `kept` for every micro-batch in flight, `recompute` once (the block
// backward recomputes under full checkpointing). Bytes at activation precision, before tensor and context split.
struct SavedBytes {
  std::int64_t kept = 0;
  std::int64_t recompute = 0;
  std::int64_t loss = 0;  // the loss's transient buffers, when the range holds the LM head
};

// Elements a kept layer's output holds per sample: a GEMM's output side of what it moves, the attention kernel's
// s x h.
std::int64_t output_elements(const Layer& l, const TransformerStructure& t) {
  if (l.kind == LayerKind::attention) return times(t.hidden, t.sequence);
  const std::int64_t sides = l.weight_rows + l.weight_cols;
  if (sides <= 0) return 0;
  return static_cast<std::int64_t>(static_cast<double>(l.activation_elements_moved) *
                                   static_cast<double>(l.weight_rows) / static_cast<double>(sides));
}

// Per sample, the logits the LM head writes (s x vocabulary): its output side. Zero without a transformer, or for
// a range without the head.
std::int64_t logit_elements(const ModelSpec& model, std::pair<std::size_t, std::size_t> range) {
  const auto& t = model.transformer();
  if (!t || t->blocks.empty()) return 0;
  const std::vector<Layer>& layers = model.layers();
  // The LM head is the matrix product after the blocks whose output the next layer, the loss, keeps in FP32 (a
  // pooler's output is no logits).
  for (std::size_t i = t->blocks.back().second; i + 1 < layers.size(); ++i) {
    if (layers[i].kind != LayerKind::gemm_kept) continue;
    const std::int64_t logits = output_elements(layers[i], *t);
    if (logits > 0 && layers[i + 1].saved_mask_bytes >= times(kFp32Bytes, logits)) {
      return i >= range.first && i < range.second ? logits : 0;
    }
  }
  return 0;
}

std::int64_t loss_bytes_per_logit(const MemoryLayout& layout, std::int64_t w) {
  if (layout.framework == MemoryFramework::pytorch && layout.compiled_loss) return w;  // the 16-bit gradient
  if (layout.framework == MemoryFramework::pytorch) {
    return layout.tensor > 1 ? kLossParallelBytesPerLogit : kPytorchLossBytesPerLogit;
  }
  return w < kFp32Bytes ? w : 0;  // FP32 logits need no copy
}

// `recomputed`: recomputed_layers for the layout's checkpointing, made once per check.
SavedBytes saved_bytes(const ModelSpec& model, std::pair<std::size_t, std::size_t> range, Precision precision,
                       const MemoryLayout& layout, const std::vector<bool>& recomputed) {
  const ActivationCheckpointing checkpointing = layout.checkpointing;
  const std::int64_t w = element_bytes(precision);
  // Megatron's fused kernels keep what they keep (KernelShape::fused_saved_elements: the bias-SwiGLU its input only).
  const bool fused = layout.framework == MemoryFramework::megatron;
  // PyTorch's ColwiseParallel all-gathers its sequence-sharded input and the product saves the gathered, whole
  // sequence (Megatron saves its shard and gathers it again in backward): such a layer's bytes count t times here,
  // so that the tensor split below leaves them whole. torchao's Float8ColwiseParallel gathers, and so keeps, the
  // input in FP8 (PrepareFloat8ModuleInput).
  const bool gathers_whole = layout.framework == MemoryFramework::pytorch && layout.tensor > 1;
  // Inductor's compiled loss keeps its 16-bit input, the logits, where eager keeps their FP32 log-softmax
  // (saved_mask_bytes, 4 B a logit), and recomputes the softmax in backward.
  const bool compiled_loss = layout.framework == MemoryFramework::pytorch && layout.compiled_loss;
  // Megatron without sequence parallelism: every tensor rank keeps the residual stream whole, the norms' inputs,
  // the dropouts' masks and the column-parallel products' inputs (Korthikanti et al. 2022: 10 of a layer's 34 sbh
  // bytes, 2 sbh a checkpointed block's input), counted t times here so that the split below leaves them whole.
  const std::int64_t stream = fused && !layout.sequence_parallel ? layout.tensor : 1;
  // Transformer Engine keeps a scaled GEMM's input for its weight gradient in the scaled format: the norm's FP8
  // output before QKV and FC1 (layernorm_linear.py: ln_out is uint8 under fp8), the FP8 transpose of the projection's
  // and FC2's input (linear.py: saved_inputmat_t), the MXFP8 and NVFP4 operands likewise: operand_bytes an element.
  const auto saved_of = [&](const Layer& l, std::int64_t elements) {
    if (!fused || l.kind != LayerKind::gemm || !is_scaled(precision)) return times(elements, w);
    return ceil_bytes(static_cast<double>(elements) * operand_bytes(precision));
  };
  const auto layer_bytes = [&](std::size_t i) {
    const Layer& l = model.layers()[i];
    if (compiled_loss && l.shape.loss) return times(l.saved_mask_bytes / kFp32Bytes, w);
    if (stream > 1 && (l.shape.sequence_region || takes_gathered_input(l))) {
      return times(plus(saved_of(l, l.saved_elements), l.saved_mask_bytes), stream);
    }
    if (gathers_whole && takes_gathered_input(l)) {
      const bool low = l.kind == LayerKind::gemm && is_scaled(precision);
      const double element = low ? operand_bytes(precision) : static_cast<double>(w);
      const std::int64_t bytes = ceil_bytes(static_cast<double>(l.saved_elements) * element);
      return plus(times(bytes, layout.tensor), l.saved_mask_bytes);
    }
    const std::int64_t kept =
        fused && l.shape.fused_saved_elements >= 0 ? l.shape.fused_saved_elements : l.saved_elements;
    return plus(saved_of(l, kept), l.saved_mask_bytes);
  };
  SavedBytes out;
  std::vector<bool> in_block(range.second, false);
  const bool checkpointed =
      checkpointing == ActivationCheckpointing::full || checkpointing == ActivationCheckpointing::selective_op;
  if (checkpointed) {
    const TransformerStructure& t = *model.transformer();
    for (const auto& [first, last] : t.blocks) {
      if (first < range.first || first >= range.second) continue;
      std::int64_t block = 0;
      std::int64_t kept = times(times(times(t.hidden, t.sequence), w), stream);  // the block's input
      for (std::size_t i = first; i < last; ++i) {
        in_block[i] = true;
        block = plus(block, layer_bytes(i));
        if (recomputed[i]) continue;
        const Layer& l = model.layers()[i];
        kept = plus(kept, plus(times(output_elements(l, t), w), l.saved_mask_bytes));
      }
      out.kept = plus(out.kept, kept);
      out.recompute = std::max(out.recompute, block);
    }
  }
  for (std::size_t i = range.first; i < range.second; ++i) {
    if (!in_block[i]) out.kept = plus(out.kept, layer_bytes(i));
  }
  out.loss = times(logit_elements(model, range), loss_bytes_per_logit(layout, w));
  return out;
}

// One chunk of a stage: its state and one micro-batch's activations (report), and what lives only for a moment:
// the recomputed block, the loss's buffers, the layers gathered whole under per-layer full sharding.
struct ChunkMemory {
  MemoryReport report;
  Bytes recompute;
  Bytes loss;
  Bytes gathered;
};

ChunkMemory stage_memory(const ModelSpec& model, std::pair<std::size_t, std::size_t> range, std::int64_t batch,
                         Precision precision, Optimizer optimizer, const MemoryLayout& layout,
                         const std::vector<bool>& recomputed) {
  // Routed experts' layers are split over the expert-parallel ranks, and their sharded state over the expert
  // data-parallel ones (the shard group / expert), as Megatron's distributed optimizer shards it.
  std::vector<bool> expert(range.second, false);
  if (layout.expert > 1) {
    for (const std::size_t l : model.transformer()->expert_layers) {
      if (l < range.second) expert[l] = true;
    }
  }
  std::int64_t dense = 0;
  std::int64_t experts = 0;
  std::int64_t scaled = 0;  // the held weights of the layers a scaled recipe runs in its low format
  std::int64_t largest = 0;
  std::int64_t second = 0;
  for (std::size_t i = range.first; i < range.second; ++i) {
    const Layer& l = model.layers()[i];
    const std::int64_t held = expert[i] ? share(l.params, layout.expert) : l.params;
    (expert[i] ? experts : dense) += held;
    if (l.kind == LayerKind::gemm) scaled += held;
    if (held > largest) {
      second = largest;
      largest = held;
    } else {
      second = std::max(second, held);
    }
  }
  const std::int64_t w = element_bytes(precision);
  const bool megatron = layout.framework == MemoryFramework::megatron;
  // Both frameworks shard over the data-parallel group with context parallelism: Megatron's distributed optimizer
  // over intra_dp_cp, torchtitan's FSDP over its dp_shard_cp mesh (the context ranks hold the same weights).
  const std::int64_t shards = times(layout.shards, layout.context);
  const std::int64_t local = share(dense, layout.tensor) + share(experts, layout.tensor);
  const std::int64_t sharded = share(share(dense, layout.tensor), shards) +
                               share(share(experts, layout.tensor), std::max<std::int64_t>(1, shards / layout.expert));
  // Under a pipeline, full sharding keeps each chunk gathered and its gradients whole through the iteration
  // (model_parallel_run.hpp, as torchtitan does): at peak only the optimizer state is sharded, as with ZeRO-1.
  const bool per_layer = layout.sharding == ShardingLevel::full && layout.pipeline == 1;
  const bool grads_sharded = layout.sharding == ShardingLevel::gradients || per_layer;
  ChunkMemory out;
  MemoryReport& r = out.report;
  if (per_layer) out.gathered = Bytes{(share(largest, layout.tensor) + share(second, layout.tensor)) * w};
  r.weights = Bytes{per_layer ? sharded * w + out.gathered.value : local * w};
  // A scaled recipe keeps each of its GEMMs' weights in the low format too, as is and transposed (Transformer
  // Engine's cached copies). Full sharding is torchtitan's FSDP with torchao's Float8Linear, which casts the weights
  // in each forward and keeps no copy (torchao float8_linear.py, tensor-wise dynamic scaling).
  if (is_scaled(precision) && layout.sharding != ShardingLevel::full) {
    const double copies = 2 * operand_bytes(precision) * static_cast<double>(share(scaled, layout.tensor));
    r.weights = Bytes{plus(r.weights.value, ceil_bytes(copies))};
    // FP8 parameters: those weights have no 16-bit copy (the optimizer's FP32 main parameters are the master).
    if (layout.fp8_params) r.weights = Bytes{r.weights.value - share(scaled, layout.tensor) * w};
  }
  // Megatron accumulates the gradients in its FP32 main-grad buffer (param_and_grad_buffer.py). So does FSDP under
  // a pipeline: PyTorch's schedules turn its gradient sync off until a stage's last micro-batch
  // (pipelining/stage.py, backward_maybe_with_nosync), and FSDP2 accumulates the unsynced whole gradients in its
  // reduce dtype, FP32 in torchtitan (fsdp_param.py, to_accumulated_grad_if_needed).
  const bool fp32_grads =
      (megatron && layout.fp32_gradients) || (layout.sharding == ShardingLevel::full && layout.pipeline > 1);
  r.gradients = Bytes{(grads_sharded ? sharded : local) * (fp32_grads ? std::max(w, kFp32Bytes) : w)};
  r.optimizer_state =
      Bytes{(layout.sharding == ShardingLevel::none ? local : sharded) * optimizer_state_bytes(optimizer, precision)};
  const SavedBytes saved = saved_bytes(model, range, precision, layout, recomputed);
  const auto split = [&](std::int64_t bytes) {
    return times(batch, share(share(bytes, layout.tensor), layout.context));
  };
  r.activations = Bytes{split(saved.kept)};  // one micro-batch
  out.recompute = Bytes{split(saved.recompute)};
  out.loss = Bytes{split(saved.loss)};
  return out;
}

// NCCL communicators of more than one rank a GPU belongs to: one per parallel group, Megatron's data x context
// group, and HSDP's shard group beside its replica group.
std::int64_t communicators(const MemoryLayout& layout) {
  std::int64_t n = 0;
  for (const std::int64_t size : {layout.tensor, layout.context, layout.pipeline, layout.expert, layout.data}) {
    n += size > 1 ? 1 : 0;
  }
  if (layout.framework == MemoryFramework::megatron && layout.context > 1 && layout.data > 1) ++n;
  if (layout.sharding != ShardingLevel::none && layout.shards > 1 && layout.shards < layout.data) ++n;
  return n;
}

constexpr std::int64_t kUserbuffersGemmStreams = 3;

// The allocator's terms on top of a stage's tensors (allocator_model.hpp).
void add_allocator_terms(MemoryReport& r, const GpuSpec& gpu, const MemoryLayout& layout, Bytes churned) {
  const bool megatron = layout.framework == MemoryFramework::megatron;
  r.framework = layout.framework;
  // Transformer Engine's initialize_ub repeats its workspace for its GEMM streams (_NUM_MAX_UB_STREAMS, 3).
  const std::int64_t te_streams = layout.userbuffers.value > 0 ? kUserbuffersGemmStreams : 1;
  r.workspaces =
      cublas_workspace(gpu) + (megatron ? Bytes{transformer_engine_workspace(gpu).value * te_streams} : Bytes{0});
  r.allocated =
      Bytes{plus(plus(plus(r.weights.value, r.gradients.value), plus(r.optimizer_state.value, r.activations.value)),
                 plus(r.loss_buffers.value, r.workspaces.value))};
  const bool recomputes = layout.checkpointing == ActivationCheckpointing::full ||
                          layout.checkpointing == ActivationCheckpointing::selective_op;
  r.reserved = reserved_bytes(r.allocated, churned, recomputes || layout.sharding == ShardingLevel::full);
  r.fragmentation = r.reserved - r.allocated;
  r.cuda_context = cuda_context(gpu);
  r.communicators = communicators(layout);
  r.nccl_buffers = nccl_buffers(r.communicators);
  r.userbuffers = layout.userbuffers;
  r.total = Bytes{plus(plus(r.reserved.value, r.userbuffers.value), plus(r.cuda_context.value, r.nccl_buffers.value))};
}

}  // namespace

void check_checkpointing(const ModelSpec& model, ActivationCheckpointing checkpointing) {
  if (checkpointing == ActivationCheckpointing::none) return;
  const auto& t = model.transformer();
  if (!t) {
    throw InputError(fmt::format("model '{}' has no transformer blocks to checkpoint", model.name()));
  }
  if (checkpointing == ActivationCheckpointing::selective && !t->flash_attention) {
    throw InputError(
        "selective recomputation of eager attention is not modelled; with flash attention (model.attention: flash, "
        "the default) the kernel already recomputes the attention core");
  }
  if (checkpointing == ActivationCheckpointing::selective_op && !t->flash_attention) {
    throw InputError(
        "selective_op keeps the attention kernel's output (torchtitan saves scaled_dot_product_attention's): it needs "
        "flash attention (model.attention: flash, the default)");
  }
}

std::vector<bool> recomputed_layers(const ModelSpec& model, ActivationCheckpointing checkpointing) {
  std::vector<bool> out(model.layers().size(), false);
  const bool full = checkpointing == ActivationCheckpointing::full;
  if (!full && checkpointing != ActivationCheckpointing::selective_op) return out;
  for (const auto& [first, last] : model.transformer()->blocks) {
    int gemms = 0;
    for (std::size_t i = first; i < last; ++i) {
      const LayerKind kind = model.layers()[i].kind;
      const bool matmul = kind == LayerKind::gemm || kind == LayerKind::gemm_kept;
      const bool kept_gemm = matmul && ++gemms % 2 == 1;
      out[i] = full || !(kept_gemm || kind == LayerKind::attention);
    }
  }
  return out;
}

void check_experts(const ModelSpec& model, std::int64_t expert) {
  if (expert <= 1) return;
  const auto& t = model.transformer();
  if (!t || t->expert_layers.empty()) {
    throw InputError(fmt::format("model '{}' has no routed experts to split over expert parallelism", model.name()));
  }
  if (t->experts % expert != 0) {
    throw InputError(
        fmt::format("expert parallelism of {} does not divide the model's {} experts", expert, t->experts));
  }
}

void check_model_split(const ModelSpec& model, std::int64_t tensor, std::int64_t context) {
  const auto& t = model.transformer();
  if (!t) return;
  if (tensor > 1 && t->heads > 0 && t->heads % tensor != 0) {
    throw InputError(
        fmt::format("tensor parallelism of {} does not divide the model's {} attention heads (Megatron "
                    "gives each rank of the tensor group whole heads)",
                    tensor, t->heads));
  }
  if (context > 1 && (context > t->sequence / 2 || t->sequence % (2 * context) != 0)) {
    throw InputError(
        fmt::format("context parallelism of {} needs a sequence that divides into {} chunks (each rank "
                    "takes two, for a balanced causal mask), got {} tokens",
                    context, 2 * context, t->sequence));
  }
}

std::vector<std::pair<std::size_t, std::size_t>> pipeline_stage_ranges(const ModelSpec& model, std::int64_t stages) {
  const std::vector<std::size_t> cuts = cut_points(model);
  if (stages < 1 || stages - 1 > static_cast<std::int64_t>(cuts.size())) {
    throw InputError(model.transformer()
                         ? fmt::format("{} pipeline stages for a model of {} transformer blocks", stages,
                                       model.transformer()->blocks.size())
                         : fmt::format("{} pipeline stages for a model of {} layers", stages, model.layers().size()));
  }
  // The segments between allowed cuts, and their forward FLOPs.
  std::vector<std::size_t> bounds{0};
  bounds.insert(bounds.end(), cuts.begin(), cuts.end());
  bounds.push_back(model.layers().size());
  std::vector<double> work;
  for (std::size_t i = 0; i + 1 < bounds.size(); ++i) {
    double flops = 0;
    for (std::size_t l = bounds[i]; l < bounds[i + 1]; ++l)
      flops += static_cast<double>(model.layers()[l].forward_flops);
    work.push_back(flops);
  }
  const auto stages_needed = [&](double limit) {  // packing segments greedily under `limit`
    std::int64_t count = 1;
    double load = 0;
    for (const double w : work) {
      if (load > 0 && load + w > limit) {
        ++count;
        load = 0;
      }
      load += w;
    }
    return count;
  };
  // The smallest largest stage (the pipeline's pace): a bisection on the limit, then the packing under it, each
  // stage keeping at least one segment so that exactly `stages` come out.
  double lo = *std::max_element(work.begin(), work.end());
  double hi = std::accumulate(work.begin(), work.end(), 0.0);
  for (int i = 0; i < 100 && hi - lo > 1e-9 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (stages_needed(mid) <= stages ? hi : lo) = mid;
  }
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t next = 0;
  for (std::int64_t k = 0; k < stages; ++k) {
    const std::size_t first = next;
    double load = work[next++];
    const auto left_for_others = static_cast<std::size_t>(stages - k - 1);
    while (next < work.size() && work.size() - next > left_for_others && (k + 1 == stages || load + work[next] <= hi)) {
      load += work[next++];
    }
    out.emplace_back(bounds[first], bounds[next]);
  }
  return out;
}

std::int64_t in_flight_passes(std::int64_t stage, std::int64_t stages, std::int64_t micro_batches,
                              PipelineSchedule schedule, std::int64_t virtual_stages) {
  if (stages <= 1) return 1;  // one stage runs its micro-batches one after another
  if (schedule == PipelineSchedule::gpipe) return micro_batches;
  // Megatron's warm-up forwards (schedules.py), then one more before the first backward frees one.
  if (schedule != PipelineSchedule::interleaved) return std::min(stages - stage, micro_batches);
  const std::int64_t warm_up = 2 * (stages - stage - 1) + (virtual_stages - 1) * stages;
  return std::min(warm_up + 1, micro_batches * virtual_stages);
}

MemoryReport memory_check(const ModelSpec& model, const GpuSpec& gpu, std::int64_t batch, Precision precision,
                          Optimizer optimizer, const MemoryLayout& layout) {
  check_layout(batch, layout);
  check_checkpointing(model, layout.checkpointing);
  check_experts(model, layout.expert);
  check_model_split(model, layout.tensor, layout.context);
  const std::int64_t p = layout.pipeline;
  const std::int64_t v = layout.schedule == PipelineSchedule::interleaved ? layout.virtual_stages : 1;
  const auto chunks = pipeline_chunk_ranges(model, p, v, layout.split);  // stage i holds chunks i, i + p, ...
  const std::vector<bool> recomputed = recomputed_layers(model, layout.checkpointing);
  MemoryReport fullest;
  for (std::int64_t stage = 0; stage < p; ++stage) {
    MemoryReport r;
    std::vector<std::int64_t> chunk_activations;  // one micro-batch through each of the stage's chunks
    Bytes recompute;
    Bytes loss;
    Bytes gathered;
    for (std::int64_t c = 0; c < v; ++c) {
      const ChunkMemory chunk = stage_memory(model, chunks[static_cast<std::size_t>(stage + c * p)], batch, precision,
                                             optimizer, layout, recomputed);
      r.weights = Bytes{plus(r.weights.value, chunk.report.weights.value)};
      r.gradients = Bytes{plus(r.gradients.value, chunk.report.gradients.value)};
      r.optimizer_state = Bytes{plus(r.optimizer_state.value, chunk.report.optimizer_state.value)};
      chunk_activations.push_back(chunk.report.activations.value);
      recompute = std::max(recompute, chunk.recompute);
      loss = std::max(loss, chunk.loss);
      gathered = Bytes{plus(gathered.value, chunk.gathered.value)};
    }
    // The passes in flight in the schedule's order: chunk 0 for p micro-batches, then chunk 1, ... (one chunk
    // without interleaving).
    r.in_flight = in_flight_passes(stage, p, layout.micro_batches, layout.schedule, v);
    const std::int64_t cycles = r.in_flight / (p * v);  // whole rounds of p passes through every chunk
    const std::int64_t rest = r.in_flight % (p * v);
    std::int64_t held = 0;
    for (std::int64_t c = 0; c < v; ++c) {
      const std::int64_t passes = cycles * p + std::clamp<std::int64_t>(rest - c * p, 0, p);
      held = plus(held, times(chunk_activations[static_cast<std::size_t>(c)], passes));
    }
    r.activations = Bytes{plus(held, recompute.value)};
    r.loss_buffers = loss > recompute ? loss - recompute : Bytes{0};
    add_allocator_terms(r, gpu, layout, Bytes{plus(plus(r.activations.value, r.loss_buffers.value), gathered.value)});
    r.stage = stage;
    if (stage == 0 || r.total > fullest.total) fullest = r;
  }
  fullest.capacity = gpu.memory;
  fullest.fits = fullest.total <= fullest.capacity;
  fullest.shortfall = fullest.fits ? Bytes{0} : fullest.total - fullest.capacity;
  return fullest;
}

}  // namespace syncsim
