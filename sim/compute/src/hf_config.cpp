#include "syncsim/compute/hf_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"
#include "syncsim/core/json_input.hpp"

#include "json_document.hpp"

namespace syncsim {

namespace {

constexpr std::uint64_t kMaxConfigBytes = std::uint64_t{1} << 20;
constexpr std::array<std::string_view, 5> kArchitectures{"LlamaForCausalLM", "MistralForCausalLM", "MixtralForCausalLM",
                                                         "DeepseekForCausalLM", "NemotronForCausalLM"};

// check_shape's field names (the scenario's model.transformer keys) as config.json spells them.
constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kJsonKeys{{{"layers", "num_hidden_layers"},
                                                                                  {"hidden", "hidden_size"},
                                                                                  {"heads", "num_attention_heads"},
                                                                                  {"kv_heads", "num_key_value_heads"},
                                                                                  {"ffn", "intermediate_size"},
                                                                                  {"vocab", "vocab_size"},
                                                                                  {"seq", "max_position_embeddings"}}};

class ConfigReader {
 public:
  ConfigReader(const nlohmann::json& doc, const std::string& source) : doc_(doc), source_(source) {}

  [[noreturn]] void fail(std::string_view key, const std::string& message) const {
    throw InputError(message, SourceLocation{source_, 0, 0}, std::string(key));
  }

  std::optional<std::int64_t> count(std::string_view key) const {
    const auto it = doc_.find(key);
    if (it == doc_.end() || it->is_null()) return std::nullopt;
    const bool too_big =
        it->is_number_unsigned() && it->get<std::uint64_t>() > std::uint64_t{std::numeric_limits<std::int64_t>::max()};
    if (!it->is_number_integer() || too_big)
      fail(key, fmt::format("expected a whole number, got {}", json_value_text(*it)));
    return it->get<std::int64_t>();
  }
  std::int64_t required(std::string_view key) const {
    const std::optional<std::int64_t> value = count(key);
    if (!value) fail(key, "missing: the config gives no such key");
    return *value;
  }
  bool flag(std::string_view key) const {
    const auto it = doc_.find(key);
    if (it == doc_.end() || it->is_null()) return false;
    if (!it->is_boolean()) fail(key, fmt::format("expected true or false, got {}", json_value_text(*it)));
    return it->get<bool>();
  }
  std::optional<std::string> text(std::string_view key) const {
    const auto it = doc_.find(key);
    if (it == doc_.end() || it->is_null()) return std::nullopt;
    if (!it->is_string()) fail(key, fmt::format("expected a name, got {}", json_value_text(*it)));
    return it->get<std::string>();
  }
  std::string architecture() const {
    const auto it = doc_.find("architectures");
    if (it == doc_.end() || !it->is_array() || it->size() != 1 || !(*it)[0].is_string()) {
      fail("architectures", "expected a list of one architecture name, like [\"LlamaForCausalLM\"]");
    }
    const std::string name = (*it)[0].get<std::string>();
    if (std::find(kArchitectures.begin(), kArchitectures.end(), name) == kArchitectures.end()) {
      fail("architectures", fmt::format("unknown architecture '{}': expected LlamaForCausalLM, MistralForCausalLM, "
                                        "MixtralForCausalLM, DeepseekForCausalLM or NemotronForCausalLM",
                                        name));
    }
    return name;
  }

 private:
  const nlohmann::json& doc_;
  const std::string& source_;
};

enum class ConfigFamily { dense, mixtral, deepseek, nemotron };

std::string_view json_key(std::string_view field, ConfigFamily family) {
  for (const auto& [name, key] : kJsonKeys) {
    if (name == field) return family == ConfigFamily::deepseek && name == "ffn" ? "moe_intermediate_size" : key;
  }
  if (field == "experts") return family == ConfigFamily::deepseek ? "n_routed_experts" : "num_local_experts";
  if (field == "experts_per_token") return "num_experts_per_tok";
  if (field == "shared_experts") return "n_shared_experts";
  if (field == "dense_layers") return "first_k_dense_replace";
  if (field == "dense_ffn") return "intermediate_size";
  return {};
}

// DeepSeekMoE (its modeling_deepseek.py): routed experts of moe_intermediate_size, n_shared_experts of them
// always on, the first first_k_dense_replace layers dense at intermediate_size; MoE on every later layer.
void read_deepseek(const ConfigReader& config, LlamaShape& shape) {
  if (const auto frequency = config.count("moe_layer_freq"); frequency && *frequency != 1) {
    config.fail("moe_layer_freq", fmt::format("MoE on every {}th layer is not supported (only 1)", *frequency));
  }
  shape.dense_ffn = shape.ffn;
  shape.ffn = config.required("moe_intermediate_size");
  shape.experts = config.required("n_routed_experts");
  shape.experts_per_token = config.required("num_experts_per_tok");
  shape.shared_experts = config.count("n_shared_experts").value_or(0);
  shape.dense_layers = config.count("first_k_dense_replace").value_or(0);
}

// Nemotron (HF's modeling_nemotron.py): LayerNorm1p and an ungated MLP of relu(x)^2, the only activation its
// config names for it.
void read_nemotron(const ConfigReader& config, LlamaShape& shape) {
  if (const auto act = config.text("hidden_act"); act && *act != "relu2") {
    config.fail("hidden_act", fmt::format("'{}' is not supported for Nemotron: expected relu2", *act));
  }
  shape.mlp = MlpActivation::squared_relu;
  shape.norm = DecoderNorm::layernorm;
}

// attention_bias and mlp_bias (LlamaConfig, NemotronConfig; absent: false): the generator's biases are on every
// projection or none.
void read_biases(const ConfigReader& config, LlamaShape& shape) {
  const bool attention = config.flag("attention_bias");
  const bool mlp = config.flag("mlp_bias");
  if (attention != mlp) {
    config.fail(attention ? "attention_bias" : "mlp_bias",
                "biases on the attention or the MLP projections alone are not supported: give both or neither");
  }
  shape.bias = attention;
}

}  // namespace

LlamaShape parse_hf_config(std::string_view json, const std::string& source) {
  const nlohmann::json doc = parse_json_document(json, source, "a Hugging Face config");
  if (!doc.is_object()) {
    throw InputError("not a Hugging Face config: expected a JSON object of settings", SourceLocation{source});
  }
  const ConfigReader config(doc, source);
  const std::string architecture = config.architecture();
  const ConfigFamily family = architecture == "MixtralForCausalLM"    ? ConfigFamily::mixtral
                              : architecture == "DeepseekForCausalLM" ? ConfigFamily::deepseek
                              : architecture == "NemotronForCausalLM" ? ConfigFamily::nemotron
                                                                      : ConfigFamily::dense;
  LlamaShape shape{.layers = config.required("num_hidden_layers"),
                   .hidden = config.required("hidden_size"),
                   .heads = config.required("num_attention_heads"),
                   .kv_heads = config.count("num_key_value_heads"),
                   .ffn = config.required("intermediate_size"),
                   .vocab = config.required("vocab_size"),
                   .sequence_length = config.required("max_position_embeddings"),
                   .tied_embeddings = config.flag("tie_word_embeddings")};
  if (family == ConfigFamily::mixtral) {
    shape.experts = config.required("num_local_experts");
    shape.experts_per_token = config.required("num_experts_per_tok");
  }
  if (family == ConfigFamily::deepseek) read_deepseek(config, shape);
  if (family == ConfigFamily::nemotron) read_nemotron(config, shape);
  read_biases(config, shape);
  if (const auto problem = check_shape(shape)) config.fail(json_key(problem->field, family), problem->message);
  if (const std::optional<std::int64_t> head_dim = config.count("head_dim");
      head_dim && *head_dim != shape.hidden / shape.heads) {  // check_shape: heads > 0 and divide hidden; no product
    config.fail("head_dim", fmt::format("{} differs from hidden_size / num_attention_heads = {}: not supported",
                                        *head_dim, shape.hidden / shape.heads));
  }
  return shape;
}

LlamaShape read_hf_config(const std::filesystem::path& path) {
  return parse_hf_config(read_input_file(path, "Hugging Face config", kMaxConfigBytes), path.string());
}

}  // namespace syncsim
