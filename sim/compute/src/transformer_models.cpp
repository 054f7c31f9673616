// BERT, GPT-2 and LLaMA-family decoders generated from their shapes (the Hugging Face transformers definitions).
#include <fmt/format.h>

#include <optional>

#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/core/input_error.hpp"
#include "transformer_builder.hpp"

namespace syncsim {

using compute_detail::TransformerBuilder;

namespace {
void require_positive(std::int64_t value, std::string_view what) {
  if (value < 1) throw InputError(fmt::format("{} must be positive, got {}", what, value));
}

void require_shape(std::int64_t layers, std::int64_t hidden, std::int64_t heads, std::int64_t vocab,
                   std::int64_t sequence_length) {
  require_positive(layers, "layers");
  require_positive(hidden, "hidden size");
  require_positive(heads, "heads");
  require_positive(vocab, "vocabulary size");
  require_positive(sequence_length, "sequence length");
  if (hidden % heads != 0) throw InputError(fmt::format("hidden size {} is not a multiple of {} heads", hidden, heads));
}

void require_learned_positions(std::int64_t sequence_length, std::int64_t max_positions) {
  if (sequence_length > max_positions) {
    throw InputError(
        fmt::format("sequence length {} exceeds the model's {} learned positions", sequence_length, max_positions));
  }
}
}  // namespace

// Post-LN encoder layer (HF BertLayer):
//   x ─ q,k,v ─ attention ─ dense ─ dropout ─ add(x) ─ LN ─┬─ fc1 ─ gelu ─ fc2 ─ dropout ─ add ─ LN
//                                                          └───────────────────────────────┘
ModelSpec bert(std::string name, const BertShape& shape) {
  require_shape(shape.layers, shape.hidden, shape.heads, shape.vocab, shape.sequence_length);
  require_positive(shape.ffn, "feed-forward size");
  require_learned_positions(shape.sequence_length, shape.max_positions);
  TransformerBuilder b(shape.sequence_length, shape.hidden);
  b.embedding("embeddings.word", shape.vocab, true);
  b.embedding("embeddings.position", shape.max_positions, false);
  b.embedding("embeddings.token_type", shape.token_types, false);
  b.sum("embeddings.sum", 3);
  b.layer_norm("embeddings.norm");
  b.dropout("embeddings.dropout");
  for (std::int64_t i = 0; i < shape.layers; ++i) {
    const std::string p = fmt::format("encoder.layer.{}.", i);
    b.begin_block();
    b.linear(p + "attention.query", shape.hidden, true);
    b.sibling_linear(p + "attention.key", shape.hidden, true);
    b.sibling_linear(p + "attention.value", shape.hidden, true);
    b.attention(p + "attention.", shape.heads, shape.heads, true, shape.attention == AttentionKernel::flash);
    b.linear(p + "attention.output.dense", shape.hidden, true);
    b.dropout(p + "attention.output.dropout");
    b.residual_add(p + "attention.output.add");
    b.layer_norm(p + "attention.output.norm");
    b.linear(p + "intermediate.dense", shape.ffn, true);
    b.gelu(p + "intermediate.gelu");
    b.linear(p + "output.dense", shape.hidden, true);
    b.dropout(p + "output.dropout");
    b.residual_add(p + "output.add");
    b.layer_norm(p + "output.norm");
    b.end_block();
  }
  b.first_token();
  b.linear("pooler.dense", shape.hidden, true);
  b.tanh("pooler.tanh");
  const TransformerStructure structure = b.structure(shape.hidden);
  return ModelSpec(std::move(name), b.take(), structure);
}

// Pre-LN decoder layer (HF GPT2Block), MLP 4h:
//   x ─┬─ LN ─ c_attn ─ attention ─ c_proj ─ dropout ─ add ─┬─ LN ─ c_fc ─ gelu ─ c_proj ─ dropout ─ add
//      └───────────────────────────────────────────────┘    └────────────────────────────────────────┘
ModelSpec gpt2(std::string name, const GptShape& shape) {
  require_shape(shape.layers, shape.hidden, shape.heads, shape.vocab, shape.sequence_length);
  require_learned_positions(shape.sequence_length, shape.max_positions);
  constexpr std::int64_t kMlpExpansion = 4;
  TransformerBuilder b(shape.sequence_length, shape.hidden);
  b.set_causal();
  b.embedding("wte", shape.vocab, true);
  b.embedding("wpe", shape.max_positions, false);
  b.sum("embeddings.sum", 2);
  b.dropout("drop");
  for (std::int64_t i = 0; i < shape.layers; ++i) {
    const std::string p = fmt::format("h.{}.", i);
    b.begin_block();
    b.layer_norm(p + "ln_1");
    b.linear(p + "attn.c_attn", 3 * shape.hidden, true);
    b.attention(p + "attn.", shape.heads, shape.heads, true, shape.attention == AttentionKernel::flash);
    b.linear(p + "attn.c_proj", shape.hidden, true);
    b.dropout(p + "attn.resid_dropout");
    b.residual_add(p + "attn.add");
    b.layer_norm(p + "ln_2");
    b.linear(p + "mlp.c_fc", kMlpExpansion * shape.hidden, true);
    b.gelu(p + "mlp.gelu");
    b.linear(p + "mlp.c_proj", shape.hidden, true);
    b.dropout(p + "mlp.dropout");
    b.residual_add(p + "mlp.add");
    b.end_block();
  }
  b.layer_norm("ln_f");
  b.linear("lm_head", shape.vocab, false, shape.vocab * shape.hidden);
  b.cross_entropy("loss");
  const TransformerStructure structure = b.structure(shape.hidden);
  return ModelSpec(std::move(name), b.take(), structure);
}

namespace {
// Counts beyond this would leave int64 once summed over layers and scaled (int64 ends at 9.2e18).
constexpr long double kMaxCount = 1e18L;
// Each decoder layer is 12 to 20 kernels, each a Layer in memory; the deepest published decoder has 126.
constexpr std::int64_t kMaxDecoderLayers = 10'000;

std::optional<ShapeProblem> check_counts(const LlamaShape& shape) {
  for (const auto& [field, value] :
       {std::pair{"layers", shape.layers}, std::pair{"hidden", shape.hidden}, std::pair{"heads", shape.heads},
        std::pair{"ffn", shape.ffn}, std::pair{"vocab", shape.vocab}, std::pair{"seq", shape.sequence_length},
        std::pair{"experts", shape.experts}, std::pair{"experts_per_token", shape.experts_per_token},
        std::pair{"kv_heads", shape.kv_heads.value_or(1)}, std::pair{"dense_ffn", shape.dense_ffn.value_or(1)}}) {
    if (value < 1) return ShapeProblem{field, fmt::format("{} must be positive, got {}", field, value)};
  }
  for (const auto& [field, value] :
       {std::pair{"shared_experts", shape.shared_experts}, std::pair{"dense_layers", shape.dense_layers}}) {
    if (value < 0) return ShapeProblem{field, fmt::format("{} must be 0 or more, got {}", field, value)};
  }
  return std::nullopt;
}

std::optional<ShapeProblem> check_structure(const LlamaShape& shape) {
  if (shape.layers > kMaxDecoderLayers) {
    return ShapeProblem{"layers", fmt::format("expected at most {} layers, got {}", kMaxDecoderLayers, shape.layers)};
  }
  if (shape.hidden % shape.heads != 0) {
    return ShapeProblem{"heads", fmt::format("{} heads do not divide the hidden size {}", shape.heads, shape.hidden)};
  }
  if (shape.kv_heads && shape.heads % *shape.kv_heads != 0) {
    return ShapeProblem{"kv_heads",
                        fmt::format("{} key/value heads do not divide the {} heads", *shape.kv_heads, shape.heads)};
  }
  if (shape.experts_per_token > shape.experts) {
    return ShapeProblem{"experts_per_token", fmt::format("{} experts per token, but the model has {} experts",
                                                         shape.experts_per_token, shape.experts)};
  }
  const bool moe = shape.experts > 1;
  if (!moe && shape.shared_experts > 0) {
    return ShapeProblem{"shared_experts", "shared experts need routed ones: give experts > 1"};
  }
  if (!moe && shape.dense_layers > 0) {
    return ShapeProblem{"dense_layers", "dense first layers are for a mixture of experts: give experts > 1"};
  }
  if (shape.dense_layers > shape.layers) {
    return ShapeProblem{"dense_layers",
                        fmt::format("{} dense layers, but the model has {} layers", shape.dense_layers, shape.layers)};
  }
  return std::nullopt;
}

// Upper bounds on the parameter and forward-FLOP counts, in long double so that they cannot overflow themselves.
std::optional<ShapeProblem> check_size(const LlamaShape& shape) {
  const auto f = [](std::int64_t v) { return static_cast<long double>(v); };
  const long double h = f(shape.hidden), s = f(shape.sequence_length), layers = f(shape.layers);
  const long double ffn = std::max(f(shape.ffn), f(shape.dense_ffn.value_or(shape.ffn)));
  const long double experts = f(shape.experts + shape.shared_experts);
  const long double per_layer = 4 * h * h + 3 * h * ffn * experts + h * experts + 2 * h;
  const long double params = 2 * f(shape.vocab) * h + layers * per_layer;
  // Products, attention (all heads, softmax included) and a generous allowance for the elementwise kernels.
  const long double flops =
      2 * s * params + 9 * s * s * h * layers + 64 * s * h * layers * experts + 8 * s * f(shape.vocab);
  if (params > kMaxCount || flops > kMaxCount) {
    return ShapeProblem{
        "", fmt::format("the model would have about {:.3g} parameters and {:.3g} forward FLOPs per "
                        "sample, beyond the {:.0e} the counts allow",
                        static_cast<double>(params), static_cast<double>(flops), static_cast<double>(kMaxCount))};
  }
  return std::nullopt;
}

void decoder_norm(TransformerBuilder& b, const std::string& name, const LlamaShape& shape) {
  if (shape.norm == DecoderNorm::layernorm) {
    b.layer_norm(name);
  } else {
    b.rms_norm(name);
  }
}

void decoder_attention(TransformerBuilder& b, const std::string& p, const LlamaShape& shape) {
  const std::int64_t kv_heads = shape.kv_heads.value_or(shape.heads);
  const std::int64_t kv_width = kv_heads * (shape.hidden / shape.heads);
  decoder_norm(b, p + "input_layernorm", shape);
  b.linear(p + "self_attn.q_proj", shape.hidden, shape.bias);
  b.sibling_linear(p + "self_attn.k_proj", kv_width, shape.bias);
  b.sibling_linear(p + "self_attn.v_proj", kv_width, shape.bias);
  if (shape.positions == PositionEncoding::rotary) b.rotary(p + "self_attn.rotary", kv_width);
  b.attention(p + "self_attn.", shape.heads, kv_heads, shape.dropout, shape.attention == AttentionKernel::flash);
  b.linear(p + "self_attn.o_proj", shape.hidden, shape.bias);
  if (shape.dropout) b.dropout(p + "self_attn.resid_dropout");
  b.residual_add(p + "self_attn.add");
}

// gate,up ─ silu·mul ─ down, or up ─ activation ─ down; `first` starts the MLP on the current tensor, else on the
// previous linear's input.
void decoder_mlp(TransformerBuilder& b, const std::string& p, std::int64_t ffn, const LlamaShape& shape, bool first) {
  const std::string into = shape.mlp == MlpActivation::swiglu ? p + "gate_proj" : p + "up_proj";
  if (first) {
    b.linear(into, ffn, shape.bias);
  } else {
    b.branch_linear(into, ffn, shape.bias);
  }
  switch (shape.mlp) {
    case MlpActivation::swiglu:
      b.sibling_linear(p + "up_proj", ffn, shape.bias);
      b.swiglu(p + "silu", p + "mul");
      break;
    case MlpActivation::gelu:
      b.gelu(p + "gelu");
      break;
    case MlpActivation::squared_relu:
      b.squared_relu(p + "squared_relu");
      break;
  }
  b.linear(p + "down_proj", shape.hidden, shape.bias);
}

// norm ─┬─ router ─ shared experts ─┐
//       └─ dispatch ─ experts ──────┴─ combine: the routed experts are one layer per projection, holding every
// expert's weights (grouped GEMMs over the dispatched tokens), named layers.N.mlp.experts.*.
void moe_mlp(TransformerBuilder& b, const std::string& p, const LlamaShape& shape) {
  b.linear(p + "router", shape.experts, false);
  b.keep_last_in_high_precision();
  if (shape.shared_experts > 0) decoder_mlp(b, p + "shared_experts.", shape.shared_experts * shape.ffn, shape, false);
  b.begin_experts(p + "experts.dispatch", shape.experts, shape.experts_per_token);
  decoder_mlp(b, p + "experts.", shape.ffn, shape, true);
  b.end_experts(p + "experts.combine", shape.shared_experts > 0);
}
}  // namespace

std::optional<ShapeProblem> check_shape(const LlamaShape& shape) {
  if (auto problem = check_counts(shape)) return problem;
  if (auto problem = check_structure(shape)) return problem;
  return check_size(shape);
}

// Pre-RMSNorm decoder layer (HF LlamaDecoderLayer), no biases, no dropout:
//   x ─┬─ norm ─ q,k,v ─ rotary ─ attention ─ o_proj ─ add ─┬─ norm ─ gate,up ─ silu·mul ─ down ─ add
//      └───────────────────────────────────────────────┘    └─────────────────────────────────────┘
// With experts (HF MixtralDecoderLayer, DeepSeekMoE) the MLP is moe_mlp's. The shape's last fields make it
// Megatron's GPT-3 block (LayerNorm, learned positions, biases, dropout, up ─ GELU ─ down; tied) or Nemotron-4's
// (LayerNorm, rotary, up ─ relu² ─ down).
ModelSpec llama(std::string name, const LlamaShape& shape) {
  if (const auto problem = check_shape(shape)) throw InputError(problem->message);
  TransformerBuilder b(shape.sequence_length, shape.hidden);
  b.set_causal();
  b.embedding("embed_tokens", shape.vocab, true);
  if (shape.positions == PositionEncoding::learned) {
    b.embedding("embed_positions", shape.sequence_length, false);
    b.sum("embeddings.sum", 2);
  }
  if (shape.dropout) b.dropout("embeddings.dropout");
  for (std::int64_t i = 0; i < shape.layers; ++i) {
    const std::string p = fmt::format("layers.{}.", i);
    b.begin_block();
    decoder_attention(b, p, shape);
    decoder_norm(b, p + "post_attention_layernorm", shape);
    if (shape.experts > 1 && i >= shape.dense_layers) {
      moe_mlp(b, p + "mlp.", shape);
    } else {
      decoder_mlp(b, p + "mlp.", i < shape.dense_layers ? shape.dense_ffn.value_or(shape.ffn) : shape.ffn, shape, true);
    }
    if (shape.dropout) b.dropout(p + "mlp.dropout");
    b.residual_add(p + "mlp.add");
    b.end_block();
  }
  decoder_norm(b, "norm", shape);
  if (shape.tied_embeddings) {
    b.linear("lm_head", shape.vocab, false, shape.vocab * shape.hidden);
  } else {
    b.linear("lm_head", shape.vocab, false);
  }
  b.cross_entropy("loss");
  const TransformerStructure structure =
      b.structure(shape.kv_heads.value_or(shape.heads) * (shape.hidden / shape.heads));
  return ModelSpec(std::move(name), b.take(), structure);
}

}  // namespace syncsim
