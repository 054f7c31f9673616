#pragma once
// The `model:` section: what each replica computes, and how.
//
//   model: {name: resnet50, batch_per_gpu: 64, precision: fp16}       # a catalog model, or inline layers:
//   model:
//     name: tiny-mlp
//     layers:                       # the fields of syncsim::Layer (compute/model_spec.hpp), counts per sample
//       - {name: fc1, params: 1049600, forward_flops: 2097152, activation_elements_moved: 2048, saved_elements: 1024}
//       - {name: block, params: 12.6e6, forward_flops: 25.2e6, activation_elements_moved: 8192, repeat: 24}
//     batch_per_gpu: 32
//   model:                          # a LLaMA-family decoder from its shape (compute/model_catalog.hpp's LlamaShape)
//     name: my-moe                  # optional label
//     transformer: {layers: 32, hidden: 4096, heads: 32, kv_heads: 8, ffn: 14336, vocab: 32000, seq: 4096,
//                   experts: 8, experts_per_token: 2}
//   model: {hf_config: Mixtral-8x7B/config.json, sequence_length: 4096, batch_per_gpu: 1}
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "syncsim/compute/compute_model.hpp"
#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/compute/model_spec.hpp"
#include "syncsim/compute/optimizer.hpp"
#include "syncsim/compute/precision.hpp"
#include "syncsim/core/sim_time.hpp"
#include "syncsim/scenario/located.hpp"
#include "syncsim/scenario/recommendation_config.hpp"

namespace syncsim {

std::string_view to_string(KernelStyle style);  // as model.kernels spells it

struct ModelConfig {
  // A catalog model name (resolved by the compute model's catalog, not here), or the inline model's label.
  Located<std::string> name;
  // Inline layers, ready for ModelSpec(name, layers): validated as ModelSpec does (names unique, counts >= 0,
  // every layer does some work), `repeat: k` expanded into layers NAME.0 .. NAME.k-1. Empty: a catalog model.
  std::vector<Located<Layer>> layers;
  // Shape overrides for a catalog model (ModelOptions in compute/model_catalog.hpp): tokens per sample for a
  // transformer, the square image side for a CNN. Whether the model takes them is the catalog's call.
  std::optional<Located<std::int64_t>> sequence_length;
  std::optional<Located<std::int64_t>> image_size;
  // A decoder's shape, from model.transformer or read from model.hf_config (a Hugging Face config.json, its path
  // resolved against the scenario's folder; model.sequence_length then overrides max_position_embeddings),
  // checked by the generator's check_shape at each key; built by compute's llama() with `name` as its label.
  // Excludes `layers`; the two keys exclude each other.
  std::optional<Located<LlamaShape>> transformer;
  // model.attention for a catalog transformer (flash unless told; a CNN has none, which the catalog refuses);
  // a `transformer` shape carries it in its own field.
  std::optional<Located<AttentionKernel>> attention;
  Located<std::int64_t> batch_per_gpu;  // samples per GPU per micro-batch, 1 to 2^24
  Located<Precision> precision;
  std::int64_t micro_batches = 1;    // gradient accumulation: micro-batches per synchronization, 1 to 2^20
  bool micro_batches_given = false;  // written in the file or by --set (not derived from global_batch)
  // Samples (a transformer's sequences) per iteration over the whole job, 1 to 2^40. Given, the loader derives
  // micro_batches = global_batch / (data-parallel size x batch_per_gpu) once the workers are known, and refuses a
  // global batch they do not divide or a micro_batches that says otherwise (global_batch.hpp). This is how LLM
  // training states its batch: held fixed while the GPU count changes.
  std::optional<Located<std::int64_t>> global_batch;
  Located<Optimizer> optimizer;
  double backward_factor = ComputeOptions{}.backward_factor;
  SimTime kernel_overhead = ComputeOptions{}.kernel_overhead;  // at most 1 s
  // How the framework runs its kernels (kernel_model.hpp): fused (Transformer Engine, Megatron, compiled graphs) or
  // eager (PyTorch without torch.compile). Given (and no efficiency), a transformer's layers run by shape
  // (compute_model.hpp); nullopt: the constant-efficiency roofline.
  std::optional<Located<KernelStyle>> kernels;
  // The loss under torch.compile too (torchtitan compiles its loss function with the model since April 2025,
  // compile.components "loss"): its kernel fused, the 16-bit logits kept in place of their FP32 log-softmax. Needs
  // kernels eager or compiled.
  Located<bool> compile_loss{false, {}, {}};
  // Megatron's cross_entropy_loss_fusion: the loss's vocabulary-parallel cross entropy as Megatron's fused functions
  // rather than PyTorch ops (compute_model.hpp, megatron_loss). Megatron's default, false; a run whose loss is not
  // Megatron's (model.kernels eager or compiled) refuses it.
  Located<bool> cross_entropy_loss_fusion{false, {}, {}};
  // Fraction of peak reached, [1e-6, 1], the same for every kernel; nullopt: kernels by shape (compute_model.hpp).
  std::optional<double> efficiency;
  // A measured single-GPU iteration at this batch and precision (above zero, at most a day): the efficiency is
  // fitted to it (compute/step_time_fit.hpp). Excludes `efficiency`.
  std::optional<Located<SimTime>> step_time;
  // A torch.profiler trace (its path resolved against the scenario's folder): every layer takes its measured
  // forward and backward (compute/layer_profile_match.hpp), taken at `profile_batch` samples per GPU (required
  // with it). Excludes `step_time`, `efficiency` and `backward_factor`.
  std::optional<Located<std::string>> profile;
  std::optional<Located<std::int64_t>> profile_batch;
  // A Chakra execution trace of one DDP iteration (one rank's `<prefix>.<rank>.et`, its path resolved against the
  // scenario's folder; chakra/ddp_workload.hpp has the mapping): its compute nodes give the layers' forward and
  // backward and the optimizer step, its ALL_REDUCEs the gradient buckets, in place of the model's. The model still
  // names what the report and the memory check describe. Excludes profile, step_time, efficiency and
  // backward_factor.
  std::optional<Located<std::string>> chakra;
  // A job's NCCL Inspector logs (verbose: NCCL_INSPECTOR_DUMP_VERBOSE=1), one file or a list, each path resolved
  // against the scenario's folder: the per-step collective sequence extracted from them
  // (validation/inspector_sequence.hpp) is the iteration, replayed on this scenario's cluster in place of the
  // model's compute and communication. The model still names what the report and the memory check describe.
  // Excludes chakra, profile, step_time, efficiency and backward_factor.
  std::optional<Located<std::vector<std::string>>> collectives;
  // model.recommendation, model.embedding_sharding and model.embedding_optimizer (recommendation_config.hpp).
  RecommendationConfig recommendation;
};

}  // namespace syncsim
