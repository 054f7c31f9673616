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
constexpr std::int64_t kSiluFlops = 4;
constexpr std::int64_t kRotaryFlops = 3;
constexpr std::int64_t kTanhFlops = 4;
constexpr std::int64_t kElementwiseFlops = 1;
}  // namespace

std::int64_t TransformerBuilder::save_input() {
  if (saved_) return 0;
  saved_ = true;
  return elements();
}

void TransformerBuilder::elementwise(const std::string& name, std::int64_t flops_per_element, bool saves_input) {
  const std::int64_t n = elements();
  layers_.push_back({.name = name,
                     .forward_flops = flops_per_element * n,
                     .activation_elements_moved = 2 * n,
                     .saved_elements = saves_input ? save_input() : 0});
  saved_ = false;
}

void TransformerBuilder::embedding(const std::string& name, std::int64_t rows) {
  const std::int64_t n = tokens_ * hidden_;
  layers_.push_back({.name = name, .params = rows * hidden_, .activation_elements_moved = 2 * n});
  width_ = hidden_;
  saved_ = false;
}

void TransformerBuilder::sum(const std::string& name, std::int64_t inputs) {
  const std::int64_t n = tokens_ * hidden_;
  layers_.push_back({.name = name, .forward_flops = (inputs - 1) * n, .activation_elements_moved = (inputs + 1) * n});
  saved_ = false;
}

void TransformerBuilder::layer_norm(const std::string& name) {
  const std::int64_t n = elements();
  layers_.push_back({.name = name,
                     .params = 2 * width_,
                     .forward_flops = kNormFlops * n,
                     .weight_elements_read = 2 * width_,
                     .activation_elements_moved = 2 * n,
                     .saved_elements = save_input()});
  saved_ = false;
}

void TransformerBuilder::rms_norm(const std::string& name) {
  const std::int64_t n = elements();
  layers_.push_back({.name = name,
                     .params = width_,
                     .forward_flops = kNormFlops * n,
                     .weight_elements_read = width_,
                     .activation_elements_moved = 2 * n,
                     .saved_elements = save_input()});
  saved_ = false;
}

void TransformerBuilder::linear(const std::string& name, std::int64_t out_features, bool bias,
                                std::int64_t tied_weights) {
  const std::int64_t in = width_;
  const std::int64_t weights = in * out_features + (bias ? out_features : 0);
  layers_.push_back({.name = name,
                     .params = tied_weights > 0 ? 0 : weights,
                     .forward_flops = tokens_ * (2 * in * out_features + (bias ? out_features : 0)),
                     .weight_elements_read = tied_weights > 0 ? tied_weights : weights,
                     .activation_elements_moved = tokens_ * (in + out_features),
                     .saved_elements = save_input()});
  linear_input_width_ = in;
  width_ = out_features;
  saved_ = false;
}

void TransformerBuilder::sibling_linear(const std::string& name, std::int64_t out_features, bool bias) {
  const std::int64_t in = linear_input_width_;
  SYNCSIM_INVARIANT(in > 0, "a sibling linear layer follows a linear layer");
  const std::int64_t weights = in * out_features + (bias ? out_features : 0);
  layers_.push_back({.name = name,
                     .params = weights,
                     .forward_flops = tokens_ * (2 * in * out_features + (bias ? out_features : 0)),
                     .weight_elements_read = weights,
                     .activation_elements_moved = tokens_ * (in + out_features)});
  width_ += out_features;
  saved_ = false;
}

void TransformerBuilder::attention(const std::string& prefix, std::int64_t heads, bool dropout_on_probs) {
  SYNCSIM_INVARIANT(width_ == 3 * hidden_, "attention reads Q, K and V side by side");
  const std::int64_t s = tokens_;
  const std::int64_t sh = s * hidden_;
  const std::int64_t probs = heads * s * s;
  // Q Kᵀ for every head: s x d times d x s, a heads of them: s²·h multiply-adds.
  layers_.push_back({.name = prefix + "scores",
                     .forward_flops = 2 * s * s * hidden_,
                     .activation_elements_moved = 2 * sh + probs,
                     .saved_elements = 2 * sh});
  layers_.push_back({.name = prefix + "softmax",
                     .forward_flops = kSoftmaxFlops * probs,
                     .activation_elements_moved = 2 * probs,
                     .saved_elements = probs});
  if (dropout_on_probs) {
    layers_.push_back({.name = prefix + "dropout",
                       .forward_flops = kElementwiseFlops * probs,
                       .activation_elements_moved = 2 * probs,
                       .saved_mask_bytes = probs});
  }
  // probs x V; backward needs both: V always, the probabilities only when dropout made a new tensor of them.
  layers_.push_back({.name = prefix + "context",
                     .forward_flops = 2 * s * s * hidden_,
                     .activation_elements_moved = probs + 2 * sh,
                     .saved_elements = sh + (dropout_on_probs ? probs : 0)});
  width_ = hidden_;
  saved_ = false;
}

void TransformerBuilder::rotary(const std::string& name) {
  const std::int64_t qk = 2 * tokens_ * hidden_;
  layers_.push_back({.name = name, .forward_flops = kRotaryFlops * qk, .activation_elements_moved = 2 * qk});
  saved_ = false;
}

void TransformerBuilder::gelu(const std::string& name) {
  elementwise(name, kGeluFlops, true);
}

void TransformerBuilder::tanh(const std::string& name) {
  // Backward uses the output (1 - y²), which this layer keeps.
  const std::int64_t n = elements();
  layers_.push_back(
      {.name = name, .forward_flops = kTanhFlops * n, .activation_elements_moved = 2 * n, .saved_elements = n});
  saved_ = true;
}

void TransformerBuilder::swiglu(const std::string& silu_name, const std::string& mul_name) {
  SYNCSIM_INVARIANT(width_ % 2 == 0, "SwiGLU reads gate and up side by side");
  const std::int64_t half = tokens_ * width_ / 2;
  // silu(gate) keeps gate; the product keeps both of its operands, silu(gate) and up.
  layers_.push_back({.name = silu_name,
                     .forward_flops = kSiluFlops * half,
                     .activation_elements_moved = 2 * half,
                     .saved_elements = half});
  layers_.push_back({.name = mul_name,
                     .forward_flops = kElementwiseFlops * half,
                     .activation_elements_moved = 3 * half,
                     .saved_elements = 2 * half});
  width_ /= 2;
  saved_ = false;
}

void TransformerBuilder::dropout(const std::string& name) {
  const std::int64_t n = elements();
  layers_.push_back({.name = name,
                     .forward_flops = kElementwiseFlops * n,
                     .activation_elements_moved = 2 * n,
                     .saved_mask_bytes = n});
  saved_ = false;
}

void TransformerBuilder::residual_add(const std::string& name) {
  const std::int64_t n = elements();
  layers_.push_back({.name = name, .forward_flops = kElementwiseFlops * n, .activation_elements_moved = 3 * n});
  saved_ = false;
}

void TransformerBuilder::cross_entropy(const std::string& name) {
  // Log-softmax keeps its output for backward: s x vocab elements.
  const std::int64_t n = elements();
  layers_.push_back(
      {.name = name, .forward_flops = kSoftmaxFlops * n, .activation_elements_moved = 2 * n, .saved_elements = n});
  saved_ = true;
}

}  // namespace syncsim::compute_detail
