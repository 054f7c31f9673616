#include "transformer_builder.hpp"

#include "syncsim/core/input_error.hpp"

namespace syncsim::compute_detail {

namespace {
// FLOPs per element of the memory-bound kernels; they barely move totals (< 0.5 % for every catalog model) but
// keep them honest. Norms: mean, variance, normalize, scale, shift. Softmax: max, subtract, exp, sum, divide.
// GELU (tanh form) about 8; SiLU about 4 (exp, add, divide, multiply); rotary 3 (two multiplies and an add).
constexpr std::int64_t kNormFlops = 5;
constexpr std::int64_t kSoftmaxFlops = 5;
constexpr std::int64_t kGeluFlops = 8;
constexpr std::int64_t kSquaredReluFlops = 2;
constexpr std::int64_t kSiluFlops = 4;
constexpr std::int64_t kRotaryFlops = 3;
constexpr std::int64_t kTanhFlops = 4;
constexpr std::int64_t kElementwiseFlops = 1;
// Flash attention keeps the row max and the row sum of every head's scores for backward, in fp32.
constexpr std::int64_t kSoftmaxStatisticsBytes = 2 * 4;
// The loss's softmax over the vocabulary is kept in FP32.
constexpr std::int64_t kFp32LossBytes = 4;

// Eager PyTorch's kernels for the memory-bound layers it runs as several ops (bytes per element against the fused
// kernel's read-once, write-once 2 + 2 at 16 bits; docs/compute.md, "Eager and fused kernels"):
//   RMSNorm (torchtitan's and Hugging Face's Llama): x.float() 2+4, pow(2) 4+4, mean 4, x * rsqrt(...) 4+4,
//     .type_as(x) 4+2, * weight 2+2 = 36 bytes in 6 kernels plus the rsqrt's: 9x the traffic, 7 kernels;
//   rotary (torchtitan's apply_rotary_emb, per Q and K): .float() 2+4, complex product 4+4, .type_as 4+2 = 20
//     bytes in 3 kernels each: 5x, 6 kernels;
//   cross entropy: logits.float() 2+4, log_softmax 4+4 = 14 bytes against the fused kernel's 2+2: 3.5x, 3 kernels
//     with the loss's gather.
constexpr KernelShape kEagerRmsNorm{.eager_kernels = 7, .eager_traffic = 9};
constexpr KernelShape kEagerRotary{.eager_kernels = 6, .eager_traffic = 5};
constexpr KernelShape kEagerCrossEntropy{.eager_kernels = 3, .eager_traffic = 3.5, .loss = true};
// relu(x)^2 as PyTorch writes it, torch.pow(F.relu(x), 2): two kernels, each reading and writing the tensor; Megatron
// runs it so too (NeMo's squared_relu under Core 0.8's MLP, whose activation fusion refuses it).
constexpr KernelShape kEagerSquaredRelu{.eager_kernels = 2, .eager_traffic = 2, .eager_under_megatron = true};
// Fused runs (Megatron's bias-SwiGLU and bias-dropout-add fusions) fold these layers into the next kernel.
constexpr KernelShape kFoldedWhenFused{.fused_traffic = 0};
}  // namespace

Layer& TransformerBuilder::push(Layer layer, KernelShape shape) {
  norm_last_ = false;
  shape.tokens = tokens_;
  shape.in_block = in_block_;
  layer.shape = shape;
  layers_.push_back(std::move(layer));
  return layers_.back();
}

std::int64_t TransformerBuilder::save_input() {
  if (saved_) return 0;
  saved_ = true;
  return elements();
}

void TransformerBuilder::elementwise(const std::string& name, std::int64_t flops_per_element, bool saves_input) {
  const std::int64_t n = elements();
  push({.name = name,
        .forward_flops = flops_per_element * n,
        .activation_elements_moved = 2 * n,
        .saved_elements = saves_input ? save_input() : 0});
  saved_ = false;
}

void TransformerBuilder::embedding(const std::string& name, std::int64_t rows, bool vocabulary) {
  const std::int64_t n = tokens_ * hidden_;
  push({.name = name,
        .params = rows * hidden_,
        .activation_elements_moved = 2 * n,
        .weight_rows = rows,
        .weight_cols = hidden_,
        .weight_matrices = 1,
        .kind = LayerKind::embedding},
       {.dense_table_gradient = true, .vocabulary_parallel = vocabulary});
  width_ = hidden_;
  saved_ = false;
}

void TransformerBuilder::sum(const std::string& name, std::int64_t inputs) {
  const std::int64_t n = tokens_ * hidden_;
  push({.name = name, .forward_flops = (inputs - 1) * n, .activation_elements_moved = (inputs + 1) * n},
       {.sequence_region = true});
  saved_ = false;
}

void TransformerBuilder::layer_norm(const std::string& name) {
  const std::int64_t n = elements();
  push({.name = name,
        .params = 2 * width_,
        .forward_flops = kNormFlops * n,
        .weight_elements_read = 2 * width_,
        .activation_elements_moved = 2 * n,
        .saved_elements = save_input()},
       {.sequence_region = true});
  saved_ = false;
  norm_last_ = true;
}

void TransformerBuilder::rms_norm(const std::string& name) {
  const std::int64_t n = elements();
  push({.name = name,
        .params = width_,
        .forward_flops = kNormFlops * n,
        .weight_elements_read = width_,
        .activation_elements_moved = 2 * n,
        .saved_elements = save_input()},
       kEagerRmsNorm)
      .shape.sequence_region = true;
  saved_ = false;
  norm_last_ = true;
}

void TransformerBuilder::linear(const std::string& name, std::int64_t out_features, bool bias,
                                std::int64_t tied_weights) {
  const bool after_norm = norm_last_ && in_block_;
  const std::int64_t in = width_;
  const std::int64_t weights = weight_copies_ * (in * out_features + (bias ? out_features : 0));
  if (weight_copies_ > 1) expert_layers_.push_back(layers_.size());
  push({.name = name,
        .params = tied_weights > 0 ? 0 : weights,
        .forward_flops = tokens_ * (2 * in * out_features + (bias ? out_features : 0)),
        .weight_elements_read = tied_weights > 0 ? tied_weights : weights,
        .activation_elements_moved = tokens_ * (in + out_features),
        .saved_elements = save_input(),
        .weight_rows = out_features,
        .weight_cols = in,
        .weight_matrices = tied_weights > 0 ? 0 : weight_copies_,
        .kind = in_block_ ? LayerKind::gemm : LayerKind::gemm_kept},
       {.split = layers_.size() == row_input_at_ ? TensorSplit::inputs : TensorSplit::outputs,
        .fused_rows = out_features});
  linear_input_width_ = in;
  fused_first_ = layers_.size() - 1;
  if (after_norm) {
    Layer& norm = layers_[layers_.size() - 2];
    layers_.back().shape.cast_by_norm = true;
    norm.shape.quantized_output_elements = norm.activation_elements_moved / 2;  // it reads as many as it writes
  }
  width_ = out_features;
  saved_ = false;
}

void TransformerBuilder::shared_input_linear(const std::string& name, std::int64_t out_features, bool bias) {
  const std::int64_t in = linear_input_width_;
  SYNCSIM_INVARIANT(in > 0, "a sibling linear layer follows a linear layer");
  const std::int64_t weights = weight_copies_ * (in * out_features + (bias ? out_features : 0));
  if (weight_copies_ > 1) expert_layers_.push_back(layers_.size());
  push({.name = name,
        .params = weights,
        .forward_flops = tokens_ * (2 * in * out_features + (bias ? out_features : 0)),
        .weight_elements_read = weights,
        .activation_elements_moved = tokens_ * (in + out_features),
        .weight_rows = out_features,
        .weight_cols = in,
        .weight_matrices = weight_copies_,
        .kind = in_block_ ? LayerKind::gemm : LayerKind::gemm_kept},
       {.split = TensorSplit::outputs, .shares_input = true, .fused_rows = out_features});
  width_ += out_features;
  saved_ = false;
}

void TransformerBuilder::keep_last_in_high_precision() {
  Layer& last = layers_.back();
  last.kind = LayerKind::gemm_kept;
  if (last.shape.cast_by_norm) {
    last.shape.cast_by_norm = false;
    layers_[layers_.size() - 2].shape.quantized_output_elements = 0;
  }
}

void TransformerBuilder::sibling_linear(const std::string& name, std::int64_t out_features, bool bias) {
  shared_input_linear(name, out_features, bias);
  // One GEMM with the linear it sits beside, and with that one's other siblings (K and V beside Q).
  const std::int64_t fused = layers_[fused_first_].shape.fused_rows + out_features;
  for (std::size_t l = fused_first_; l < layers_.size(); ++l) layers_[l].shape.fused_rows = fused;
}

void TransformerBuilder::branch_linear(const std::string& name, std::int64_t out_features, bool bias) {
  // A parallel block's MLP beside the attention: its own module, a GEMM of its own, which its siblings join.
  shared_input_linear(name, out_features, bias);
  fused_first_ = layers_.size() - 1;
  width_ = out_features;
}

void TransformerBuilder::attention(const std::string& prefix, std::int64_t heads, std::int64_t kv_heads,
                                   bool dropout_on_probs, bool flash) {
  flash_ = flash_ && flash;
  heads_ = heads;
  kv_heads_ = kv_heads;
  const std::int64_t s = tokens_;
  const std::int64_t q = s * hidden_;
  const std::int64_t kv = s * kv_heads * (hidden_ / heads);  // K, and V, each
  SYNCSIM_INVARIANT(width_ * s == q + 2 * kv, "attention reads Q, K and V side by side");
  const std::int64_t probs = heads * s * s;
  // Q Kᵀ for every query head: s x d times d x s, a heads of them: s²·h multiply-adds; likewise probs x V.
  const std::int64_t products = 2 * s * s * hidden_;
  const std::int64_t dropout_flops = dropout_on_probs ? kElementwiseFlops * probs : 0;
  const KernelShape head{.head_dim = hidden_ / heads, .causal = causal_};
  if (flash) {
    // Tiles of the scores live in on-chip memory only; the output O is the next linear's input, kept there.
    push({.name = prefix + "flash_attention",
          .forward_flops = 2 * products + kSoftmaxFlops * probs + dropout_flops,
          .activation_elements_moved = 2 * q + 2 * kv,
          .saved_elements = q + 2 * kv,
          .saved_mask_bytes = kSoftmaxStatisticsBytes * heads * s,
          .kind = LayerKind::attention},
         head);
  } else {
    push({.name = prefix + "scores",
          .forward_flops = products,
          .activation_elements_moved = q + kv + probs,
          .saved_elements = q + kv,
          .kind = LayerKind::attention},
         head);
    push({.name = prefix + "softmax",
          .forward_flops = kSoftmaxFlops * probs,
          .activation_elements_moved = 2 * probs,
          .saved_elements = probs});
    if (dropout_on_probs) {
      push({.name = prefix + "dropout",
            .forward_flops = dropout_flops,
            .activation_elements_moved = 2 * probs,
            .saved_mask_bytes = probs});
    }
    // probs x V; backward needs both: V always, the probabilities only when dropout made a new tensor of them.
    push({.name = prefix + "context",
          .forward_flops = products,
          .activation_elements_moved = probs + kv + q,
          .saved_elements = kv + (dropout_on_probs ? probs : 0),
          .kind = LayerKind::attention},
         head);
  }
  width_ = hidden_;
  saved_ = false;
  row_input_at_ = layers_.size();
}

void TransformerBuilder::rotary(const std::string& name, std::int64_t kv_width) {
  const std::int64_t qk = tokens_ * (hidden_ + kv_width);
  push({.name = name, .forward_flops = kRotaryFlops * qk, .activation_elements_moved = 2 * qk}, kEagerRotary);
  saved_ = false;
}

void TransformerBuilder::begin_experts(const std::string& dispatch_name, std::int64_t experts, std::int64_t per_token) {
  dispatch_layers_.push_back(layers_.size());
  experts_ = experts;
  experts_per_token_ = per_token;
  // The gather reads the s x h normed input and writes its s·k copies, grouped by expert.
  const std::int64_t n = tokens_ * hidden_;
  push({.name = dispatch_name, .activation_elements_moved = n + per_token * n});
  tokens_ *= per_token;
  per_token_ = per_token;
  weight_copies_ = experts;
  width_ = hidden_;
  saved_ = false;
}

void TransformerBuilder::end_experts(const std::string& combine_name, bool shared_branch) {
  SYNCSIM_INVARIANT(width_ == hidden_, "the experts end on the hidden size");
  tokens_ /= per_token_;
  const std::int64_t n = tokens_ * hidden_;
  // Each token's k outputs times their router weights, summed (plus the shared experts' output); backward needs
  // the k outputs for the router weights' gradient.
  const std::int64_t routed = per_token_ * n;
  push({.name = combine_name,
        .forward_flops = 2 * routed + (shared_branch ? n : 0),
        .activation_elements_moved = routed + n + (shared_branch ? n : 0),
        .saved_elements = routed});
  per_token_ = 1;
  weight_copies_ = 1;
  saved_ = false;
}

void TransformerBuilder::gelu(const std::string& name) {
  elementwise(name, kGeluFlops, true);
  row_input_at_ = layers_.size();
}

void TransformerBuilder::squared_relu(const std::string& name) {
  // Backward needs x (2·relu(x)), which this layer keeps.
  const std::int64_t n = elements();
  push({.name = name,
        .forward_flops = kSquaredReluFlops * n,
        .activation_elements_moved = 2 * n,
        .saved_elements = save_input()},
       kEagerSquaredRelu);
  saved_ = false;
  row_input_at_ = layers_.size();
}

void TransformerBuilder::tanh(const std::string& name) {
  // Backward uses the output (1 - y²), which this layer keeps.
  const std::int64_t n = elements();
  push({.name = name, .forward_flops = kTanhFlops * n, .activation_elements_moved = 2 * n, .saved_elements = n});
  saved_ = true;
}

void TransformerBuilder::swiglu(const std::string& silu_name, const std::string& mul_name) {
  SYNCSIM_INVARIANT(width_ % 2 == 0, "SwiGLU reads gate and up side by side");
  const std::int64_t half = tokens_ * width_ / 2;
  // silu(gate) keeps gate; the product keeps both of its operands, silu(gate) and up.
  push({.name = silu_name,
        .forward_flops = kSiluFlops * half,
        .activation_elements_moved = 2 * half,
        .saved_elements = half},
       kFoldedWhenFused);
  push({.name = mul_name,
        .forward_flops = kElementwiseFlops * half,
        .activation_elements_moved = 3 * half,
        .saved_elements = 2 * half},
       {.fused_saved_elements = half});
  width_ /= 2;
  saved_ = false;
  row_input_at_ = layers_.size();
}

void TransformerBuilder::dropout(const std::string& name) {
  const std::int64_t n = elements();
  push(
      {.name = name, .forward_flops = kElementwiseFlops * n, .activation_elements_moved = 2 * n, .saved_mask_bytes = n},
      in_block_ ? kFoldedWhenFused : KernelShape{})
      .shape.sequence_region = true;
  saved_ = false;
}

void TransformerBuilder::residual_add(const std::string& name) {
  const std::int64_t n = elements();
  push({.name = name, .forward_flops = kElementwiseFlops * n, .activation_elements_moved = 3 * n},
       {.sequence_region = true});
  saved_ = false;
}

void TransformerBuilder::cross_entropy(const std::string& name) {
  // Log-softmax keeps its output for backward, s x vocab elements, in FP32 whatever the precision: Megatron's
  // vocabulary-parallel cross entropy and torchtitan's loss upcast the logits before the softmax.
  const std::int64_t n = elements();
  push({.name = name,
        .forward_flops = kSoftmaxFlops * n,
        .activation_elements_moved = 2 * n,
        .saved_mask_bytes = kFp32LossBytes * n},
       kEagerCrossEntropy);
  saved_ = true;
}

}  // namespace syncsim::compute_detail
