#pragma once
// TransformerBuilder: generates a transformer's layers from its shape, one kernel per layer (PyTorch).
//
// Per sample of s tokens with hidden size h, a heads and g key/value heads of d = h/a (the current tensor is
// s x width; K and V are s x gd each, gd = h without grouped-query attention):
//
//   linear n -> m:           params nm (+m), FLOPs 2·s·nm (+s·m), saves its input
//   eager attention:         three kernels, the a·s² probabilities materialised —
//     scores QKᵀ:            FLOPs 2·s²·h over all heads (every query head attends), saves Q and K
//     softmax:               a·s² elements, saves its output
//     context (probs x V):   FLOPs 2·s²·h, saves V and the probabilities unless softmax already keeps them
//   flash attention:         one kernel, the same FLOPs; moves Q, K, V and the output, no s x s matrix; saves
//                            Q, K, V and the softmax statistics (row max and sum, 2 fp32 per row per head), and
//                            regenerates any dropout mask from the RNG state (FlashAttention, Dao et al. 2022)
//   layer norm / RMSNorm:    params 2h / h, saves its input
//   dropout:                 saves a 1-byte mask per element
//   mixture of experts:      E experts' weights, k per token: each expert projection is one grouped GEMM over
//                            the s·k dispatched token copies (params E x nm, FLOPs 2·s·k·nm)
//
// Summed over a layer this is Megatron-LM's forward count, 24·s·h² + 4·s²·h (Narayanan et al., SC'21), and the
// saved activations with eager attention are Korthikanti et al.'s s·h·(34 + 5·a·s/h) bytes at 16 bits (MLSys'23,
// §4.1); with flash attention s·h·34 + 8·a·s: all tested.
// Private to the catalog (model_catalog.hpp); FLOP constants in transformer_builder.cpp.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "syncsim/compute/model_spec.hpp"

namespace syncsim::compute_detail {

class TransformerBuilder {
 public:
  TransformerBuilder(std::int64_t tokens, std::int64_t hidden)
      : tokens_(tokens), sequence_(tokens), hidden_(hidden), width_(hidden) {}

  // A lookup into a rows x hidden table: reads s of its rows, no FLOPs; backward keeps only the indices and writes the
  // whole table's gradient. `vocabulary`: the token table, split over the tensor group; false: positions, token types.
  void embedding(const std::string& name, std::int64_t rows, bool vocabulary);
  // Sums `inputs` tensors of s x hidden (BERT's three embeddings).
  void sum(const std::string& name, std::int64_t inputs);
  void layer_norm(const std::string& name);
  void rms_norm(const std::string& name);
  // `tied_weights` > 0: the weight is another layer's (GPT-2's LM head reads the token table), so no parameters.
  void linear(const std::string& name, std::int64_t out_features, bool bias, std::int64_t tied_weights = 0);
  // A linear layer reading the same input as the previous linear (separate q/k/v or gate/up projections): the
  // input is kept once, and the outputs sit side by side (the current width grows by out_features).
  void sibling_linear(const std::string& name, std::int64_t out_features, bool bias);
  // A linear layer reading the same input as the previous linear, starting a tensor of its own (a MoE block's
  // shared experts read the normed input its router reads).
  void branch_linear(const std::string& name, std::int64_t out_features, bool bias);
  // Attention over Q (s x h), K and V (s x kv_heads·h/heads each) side by side; leaves an s x hidden tensor.
  // Eager: scores, softmax, optional dropout on the probabilities, context. Flash: one fused kernel.
  void attention(const std::string& prefix, std::int64_t heads, std::int64_t kv_heads, bool dropout_on_probs,
                 bool flash);
  // Rotary position embedding on Q and K; backward needs only the cached angles.
  void rotary(const std::string& name, std::int64_t kv_width);
  // Routed experts: copies each of the s tokens to its k experts (`dispatch`), after which the linear layers
  // hold `experts` copies of their weights and run over s·k rows (grouped GEMMs); end_experts adds the k
  // weighted outputs per token, and a shared-expert branch of s x hidden when given, into s x hidden.
  void begin_experts(const std::string& dispatch_name, std::int64_t experts, std::int64_t per_token);
  void end_experts(const std::string& combine_name, bool shared_branch);
  void gelu(const std::string& name);
  // relu(x)^2: Megatron's squared_relu, one fused kernel; eager PyTorch runs relu and pow.
  void squared_relu(const std::string& name);
  void tanh(const std::string& name);
  // SwiGLU as two kernels, silu(gate) then x up; the current tensor is gate and up side by side (s x 2f),
  // leaving s x f.
  void swiglu(const std::string& silu_name, const std::string& mul_name);
  void dropout(const std::string& name);
  void residual_add(const std::string& name);
  // Softmax cross-entropy over the s x vocab logits; keeps the probabilities for backward.
  void cross_entropy(const std::string& name);
  // A decoder's attention: each token attends to those before it (GPT, Llama).
  void set_causal() { causal_ = true; }
  // Keeps only the first token (BERT's pooler reads [CLS]).
  void first_token() {
    tokens_ = 1;
    saved_ = false;
  }

  // Blocks: the layers added between begin_block and end_block are one transformer block (model_spec.hpp).
  void begin_block() {
    block_first_ = layers_.size();
    in_block_ = true;
  }
  void end_block() {
    blocks_.emplace_back(block_first_, layers_.size());
    in_block_ = false;
  }
  // The last layer is a matrix product that the scaled recipes keep in 16 bits (a MoE router).
  // The last layer, a linear one, runs in 16 bits under a scaled precision: nothing casts its input (the norm before
  // it, if any, writes 16 bits).
  void keep_last_in_high_precision();
  // The blocks so far with the model's widths; kv_width is K's width (h without grouped-query attention).
  TransformerStructure structure(std::int64_t kv_width) const {
    return {.hidden = hidden_,
            .sequence = sequence_,
            .kv_width = kv_width,
            .heads = heads_,
            .kv_heads = kv_heads_,
            .blocks = blocks_,
            .flash_attention = flash_,
            .experts = experts_,
            .experts_per_token = experts_per_token_,
            .expert_layers = expert_layers_,
            .dispatch_layers = dispatch_layers_};
  }

  std::vector<Layer> take() { return std::move(layers_); }

 private:
  std::int64_t elements() const { return tokens_ * width_; }
  // Adds a layer, its kernel shape's tokens the current ones.
  Layer& push(Layer layer, KernelShape shape = {});
  std::int64_t save_input();
  // A linear layer reading the last linear's input (KernelShape::shares_input).
  void shared_input_linear(const std::string& name, std::int64_t out_features, bool bias);
  void elementwise(const std::string& name, std::int64_t flops_per_element, bool saves_input);

  std::int64_t tokens_;
  std::int64_t sequence_;  // tokens per sample, whatever first_token does to tokens_
  std::int64_t hidden_;
  std::int64_t width_;
  std::int64_t linear_input_width_ = 0;  // input width of the last linear, for its siblings
  std::size_t fused_first_ = 0;          // the last linear's layer: its siblings join its fused projection
  std::int64_t weight_copies_ = 1;       // experts holding the next linear layers' weights
  std::int64_t per_token_ = 1;           // experts each token visits, inside begin/end_experts
  bool saved_ = false;                   // the current tensor is already kept for backward by some layer
  std::vector<Layer> layers_;
  std::size_t block_first_ = 0;
  bool in_block_ = false;   // between begin_block and end_block: linear layers are the block's GEMMs
  bool norm_last_ = false;  // the last layer pushed is a norm
  std::vector<std::pair<std::size_t, std::size_t>> blocks_;
  bool causal_ = false;  // attention masks future tokens (a decoder)
  // layers_.size() right after an attention or an activation: the next linear is row-parallel (reads their output)
  std::size_t row_input_at_ = std::numeric_limits<std::size_t>::max();
  bool flash_ = true;          // every attention() so far was flash
  std::int64_t heads_ = 0;     // the last attention()'s query heads
  std::int64_t kv_heads_ = 0;  // and key/value heads
  std::int64_t experts_ = 1;
  std::int64_t experts_per_token_ = 1;
  std::vector<std::size_t> expert_layers_;    // layers added while weight_copies_ > 1
  std::vector<std::size_t> dispatch_layers_;  // begin_experts' layers
};

}  // namespace syncsim::compute_detail
