// BERT, GPT-2 and LLaMA generated from their shapes (the Hugging Face transformers definitions).
#include <fmt/format.h>

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
  b.embedding("embeddings.word", shape.vocab);
  b.embedding("embeddings.position", shape.max_positions);
  b.embedding("embeddings.token_type", shape.token_types);
  b.sum("embeddings.sum", 3);
  b.layer_norm("embeddings.norm");
  b.dropout("embeddings.dropout");
  for (std::int64_t i = 0; i < shape.layers; ++i) {
    const std::string p = fmt::format("encoder.layer.{}.", i);
    b.linear(p + "attention.query", shape.hidden, true);
    b.sibling_linear(p + "attention.key", shape.hidden, true);
    b.sibling_linear(p + "attention.value", shape.hidden, true);
    b.attention(p + "attention.", shape.heads, true);
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
  }
  b.first_token();
  b.linear("pooler.dense", shape.hidden, true);
  b.tanh("pooler.tanh");
  return ModelSpec(std::move(name), b.take());
}

// Pre-LN decoder layer (HF GPT2Block), MLP 4h:
//   x ─┬─ LN ─ c_attn ─ attention ─ c_proj ─ dropout ─ add ─┬─ LN ─ c_fc ─ gelu ─ c_proj ─ dropout ─ add
//      └───────────────────────────────────────────────┘    └────────────────────────────────────────┘
ModelSpec gpt2(std::string name, const GptShape& shape) {
  require_shape(shape.layers, shape.hidden, shape.heads, shape.vocab, shape.sequence_length);
  require_learned_positions(shape.sequence_length, shape.max_positions);
  constexpr std::int64_t kMlpExpansion = 4;
  TransformerBuilder b(shape.sequence_length, shape.hidden);
  b.embedding("wte", shape.vocab);
  b.embedding("wpe", shape.max_positions);
  b.sum("embeddings.sum", 2);
  b.dropout("drop");
  for (std::int64_t i = 0; i < shape.layers; ++i) {
    const std::string p = fmt::format("h.{}.", i);
    b.layer_norm(p + "ln_1");
    b.linear(p + "attn.c_attn", 3 * shape.hidden, true);
    b.attention(p + "attn.", shape.heads, true);
    b.linear(p + "attn.c_proj", shape.hidden, true);
    b.dropout(p + "attn.resid_dropout");
    b.residual_add(p + "attn.add");
    b.layer_norm(p + "ln_2");
    b.linear(p + "mlp.c_fc", kMlpExpansion * shape.hidden, true);
    b.gelu(p + "mlp.gelu");
    b.linear(p + "mlp.c_proj", shape.hidden, true);
    b.dropout(p + "mlp.dropout");
    b.residual_add(p + "mlp.add");
  }
  b.layer_norm("ln_f");
  b.linear("lm_head", shape.vocab, false, shape.vocab * shape.hidden);
  b.cross_entropy("loss");
  return ModelSpec(std::move(name), b.take());
}

// Pre-RMSNorm decoder layer (HF LlamaDecoderLayer), no biases, no dropout:
//   x ─┬─ norm ─ q,k,v ─ rotary ─ attention ─ o_proj ─ add ─┬─ norm ─ gate,up ─ silu·mul ─ down ─ add
//      └───────────────────────────────────────────────┘    └─────────────────────────────────────┘
ModelSpec llama(std::string name, const LlamaShape& shape) {
  require_shape(shape.layers, shape.hidden, shape.heads, shape.vocab, shape.sequence_length);
  require_positive(shape.ffn, "feed-forward size");
  TransformerBuilder b(shape.sequence_length, shape.hidden);
  b.embedding("embed_tokens", shape.vocab);
  for (std::int64_t i = 0; i < shape.layers; ++i) {
    const std::string p = fmt::format("layers.{}.", i);
    b.rms_norm(p + "input_layernorm");
    b.linear(p + "self_attn.q_proj", shape.hidden, false);
    b.sibling_linear(p + "self_attn.k_proj", shape.hidden, false);
    b.sibling_linear(p + "self_attn.v_proj", shape.hidden, false);
    b.rotary(p + "self_attn.rotary");
    b.attention(p + "self_attn.", shape.heads, false);
    b.linear(p + "self_attn.o_proj", shape.hidden, false);
    b.residual_add(p + "self_attn.add");
    b.rms_norm(p + "post_attention_layernorm");
    b.linear(p + "mlp.gate_proj", shape.ffn, false);
    b.sibling_linear(p + "mlp.up_proj", shape.ffn, false);
    b.swiglu(p + "mlp.silu", p + "mlp.mul");
    b.linear(p + "mlp.down_proj", shape.hidden, false);
    b.residual_add(p + "mlp.add");
  }
  b.rms_norm("norm");
  b.linear("lm_head", shape.vocab, false);
  b.cross_entropy("loss");
  return ModelSpec(std::move(name), b.take());
}

}  // namespace syncsim
