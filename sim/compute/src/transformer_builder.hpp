#pragma once
// TransformerBuilder: generates a transformer's layers from its shape, one kernel per layer (eager PyTorch).
//
// Per sample of s tokens with hidden size h (the current tensor is s x width):
//
//   linear n -> m:           params nm (+m), FLOPs 2·s·nm (+s·m), saves its input
//   attention scores QKᵀ:    FLOPs 2·s²·h over all heads, saves Q and K (2sh)
//   softmax:                 a·s² elements, saves its output
//   context (probs x V):     FLOPs 2·s²·h, saves V (sh) and the probabilities unless softmax already keeps them
//   layer norm / RMSNorm:    params 2h / h, saves its input
//   dropout:                 saves a 1-byte mask per element
//
// Summed over a layer this is Megatron-LM's forward count, 24·s·h² + 4·s²·h (Narayanan et al., SC'21), and the
// saved activations are Korthikanti et al.'s s·h·(34 + 5·a·s/h) bytes at 16 bits (MLSys'23, §4.1): both
// tested. Attention is eager (the a·s² probabilities are materialised), not FlashAttention.
// Private to the catalog (model_catalog.hpp); FLOP constants in transformer_builder.cpp.
#include <cstdint>
#include <string>
#include <vector>

#include "syncsim/compute/model_spec.hpp"

namespace syncsim::compute_detail {

class TransformerBuilder {
 public:
  TransformerBuilder(std::int64_t tokens, std::int64_t hidden) : tokens_(tokens), hidden_(hidden), width_(hidden) {}

  // A lookup into a rows x hidden table: reads s of its rows, no FLOPs; backward needs only the indices.
  void embedding(const std::string& name, std::int64_t rows);
  // Sums `inputs` tensors of s x hidden (BERT's three embeddings).
  void sum(const std::string& name, std::int64_t inputs);
  void layer_norm(const std::string& name);
  void rms_norm(const std::string& name);
  // `tied_weights` > 0: the weight is another layer's (GPT-2's LM head reads the token table), so no parameters.
  void linear(const std::string& name, std::int64_t out_features, bool bias, std::int64_t tied_weights = 0);
  // A linear layer reading the same input as the previous linear (separate q/k/v or gate/up projections): the
  // input is kept once, and the outputs sit side by side (the current width grows by out_features).
  void sibling_linear(const std::string& name, std::int64_t out_features, bool bias);
  // Scores, softmax, optional dropout on the probabilities, context; leaves an s x hidden tensor.
  void attention(const std::string& prefix, std::int64_t heads, bool dropout_on_probs);
  // Rotary position embedding on Q and K (2·s·h elements); backward needs only the cached angles.
  void rotary(const std::string& name);
  void gelu(const std::string& name);
  void tanh(const std::string& name);
  // SwiGLU as two kernels, silu(gate) then x up; the current tensor is gate and up side by side (s x 2f),
  // leaving s x f.
  void swiglu(const std::string& silu_name, const std::string& mul_name);
  void dropout(const std::string& name);
  void residual_add(const std::string& name);
  // Softmax cross-entropy over the s x vocab logits; keeps the probabilities for backward.
  void cross_entropy(const std::string& name);
  // Keeps only the first token (BERT's pooler reads [CLS]).
  void first_token() {
    tokens_ = 1;
    saved_ = false;
  }

  std::vector<Layer> take() { return std::move(layers_); }

 private:
  std::int64_t elements() const { return tokens_ * width_; }
  std::int64_t save_input();
  void elementwise(const std::string& name, std::int64_t flops_per_element, bool saves_input);

  std::int64_t tokens_;
  std::int64_t hidden_;
  std::int64_t width_;
  std::int64_t linear_input_width_ = 0;  // input width of the last linear, for its siblings
  bool saved_ = false;                   // the current tensor is already kept for backward by some layer
  std::vector<Layer> layers_;
};

}  // namespace syncsim::compute_detail
