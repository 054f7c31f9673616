#pragma once
// A Hugging Face transformers `config.json` read into the decoder generator's shape (model_catalog.hpp's
// LlamaShape), for `model.hf_config` in a scenario:
//
//   config.json key            LlamaShape field     architectures
//   num_hidden_layers          layers               LlamaForCausalLM, MistralForCausalLM, MixtralForCausalLM,
//                                                   NemotronForCausalLM
//   hidden_size                hidden
//   num_attention_heads        heads
//   num_key_value_heads        kv_heads             (absent: as many as heads, as HF defaults it)
//   intermediate_size          ffn
//   vocab_size                 vocab
//   max_position_embeddings    sequence_length      (the default; a scenario may give a shorter one)
//   tie_word_embeddings        tied_embeddings      (absent: false, LlamaConfig's and MistralConfig's default)
//   num_local_experts          experts              MixtralForCausalLM only
//   num_experts_per_tok        experts_per_token    MixtralForCausalLM, DeepseekForCausalLM
//   n_routed_experts           experts              DeepseekForCausalLM (DeepSeekMoE) only, and:
//   moe_intermediate_size      ffn                    (intermediate_size is then dense_ffn, of the first
//   n_shared_experts           shared_experts          first_k_dense_replace = dense_layers layers;
//   first_k_dense_replace      dense_layers            moe_layer_freq other than 1 is refused)
//   attention_bias, mlp_bias   bias                 (absent: false; both or neither)
//   hidden_act                 mlp                  NemotronForCausalLM: relu2 (squared ReLU), with LayerNorm
//
// Everything else (rope_theta, rms_norm_eps, torch_dtype, Nemotron's partial_rotary_factor, ...) changes no count
// and is ignored; so is Mistral's sliding_window (attention is counted over the whole sequence). A head_dim other
// than hidden_size / num_attention_heads is refused: the generator derives it. Errors are InputError at the file,
// keyed by the JSON key: "llama.json: num_key_value_heads: 5 key/value heads do not divide the 32 heads".
//
//   LlamaShape shape = read_hf_config("Meta-Llama-3-8B/config.json");
//   ModelSpec model = llama("llama3-8b", shape);
#include <filesystem>
#include <string>
#include <string_view>

#include "syncsim/compute/model_catalog.hpp"

namespace syncsim {

// `source` names the text in errors (the file's path).
LlamaShape parse_hf_config(std::string_view json, const std::string& source);
// At most 1 MiB (a config is a few KB); a directory, device or missing file is refused by read_input_file.
LlamaShape read_hf_config(const std::filesystem::path& path);

}  // namespace syncsim
