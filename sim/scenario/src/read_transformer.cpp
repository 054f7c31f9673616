// model.transformer and model.hf_config: a pre-norm decoder's shape (compute/model_catalog.hpp's LlamaShape),
// every value checked at its key by the generator's own check_shape.
#include <fmt/format.h>

#include "enum_names.hpp"
#include "field_reader.hpp"
#include "sections.hpp"
#include "syncsim/compute/hf_config.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim::scenario_detail {

namespace {

// check_shape's verdict at the key it names (the whole block when the key is not written, or for the shape as a
// whole: a size beyond int64).
void check_at_keys(const LlamaShape& shape, const MapReader& reader) {
  const auto problem = check_shape(shape);
  if (!problem) return;
  const ConfigNode* value = problem->field.empty() ? nullptr : reader.get(problem->field);
  if (value) fail(*value, reader.path(problem->field), problem->message);
  throw InputError(problem->message, reader.where(), reader.path());
}

}  // namespace

Located<LlamaShape> read_transformer(const ConfigNode& node, const std::string& path) {
  const MapReader reader(node, path,
                         {"layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "seq", "experts",
                          "experts_per_token", "tied_embeddings", "shared_experts", "dense_layers", "dense_ffn", "mlp",
                          "norm", "positions", "bias", "dropout"});
  const auto required = [&](std::string_view key, std::string_view why) {
    return read_whole(reader.require(key, why), reader.path(key), 1);
  };
  const auto optional = [&](std::string_view key, std::int64_t minimum) -> std::optional<std::int64_t> {
    const ConfigNode* value = reader.get(key);
    if (!value) return std::nullopt;
    return read_whole(*value, reader.path(key), minimum);
  };
  LlamaShape shape{.layers = required("layers", "decoder layers"),
                   .hidden = required("hidden", "the hidden size"),
                   .heads = required("heads", "attention heads"),
                   .kv_heads = optional("kv_heads", 1),
                   .ffn = required("ffn", "the SwiGLU width, of each expert in a mixture of experts"),
                   .vocab = required("vocab", "the vocabulary size"),
                   .sequence_length = required("seq", "tokens per sample"),
                   .experts = optional("experts", 1).value_or(1),
                   .experts_per_token = optional("experts_per_token", 1).value_or(1),
                   .shared_experts = optional("shared_experts", 0).value_or(0),
                   .dense_layers = optional("dense_layers", 0).value_or(0),
                   .dense_ffn = optional("dense_ffn", 1)};
  const auto flag = [&](std::string_view key, bool& field) {
    if (const ConfigNode* value = reader.get(key)) field = read_bool(*value, reader.path(key));
  };
  flag("tied_embeddings", shape.tied_embeddings);
  flag("bias", shape.bias);
  flag("dropout", shape.dropout);
  const auto choice = [&](std::string_view key, auto& field, const auto& names) {
    if (const ConfigNode* value = reader.get(key)) field = read_choice(*value, reader.path(key), names);
  };
  choice("mlp", shape.mlp, kMlpActivationNames);
  choice("norm", shape.norm, kDecoderNormNames);
  choice("positions", shape.positions, kPositionEncodingNames);
  check_at_keys(shape, reader);
  return located(shape, node, path);
}

Located<LlamaShape> read_hf_config_key(const ConfigNode& node, const std::string& path,
                                       const std::filesystem::path& base_dir) {
  std::filesystem::path file(read_text(node, path, "a config.json path"));
  if (file.is_relative() && !base_dir.empty()) file = (base_dir / file).lexically_normal();
  // The config's own errors name the file and its JSON key; the scenario key is where the file was given.
  return located(read_hf_config(file), node, path);
}

}  // namespace syncsim::scenario_detail
