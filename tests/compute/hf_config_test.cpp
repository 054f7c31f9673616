#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "syncsim/compute/hf_config.hpp"
#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;

namespace {
const std::filesystem::path kData = SYNCSIM_COMPUTE_DATA;

// A config of the Llama 3 8B shape with `extra` settings appended (a later key wins in nlohmann's parse).
std::string llama_config(const std::string& extra = "") {
  return R"({"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 32, "hidden_size": 4096,
             "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336,
             "vocab_size": 128256, "max_position_embeddings": 8192)" +
         extra + "}";
}

void same_model(const ModelSpec& a, const ModelSpec& b) {
  REQUIRE(a.layers().size() == b.layers().size());
  CHECK(a.params() == b.params());
  CHECK(a.forward_flops() == b.forward_flops());
  CHECK(a.saved_elements() == b.saved_elements());
  CHECK(a.saved_mask_bytes() == b.saved_mask_bytes());
}
}  // namespace

TEST_CASE("a Hugging Face config.json gives the catalog's model, layer for layer", "[hf_config]") {
  const LlamaShape llama3 = read_hf_config(kData / "llama3-8b-config.json");
  CHECK(llama3.kv_heads == 8);
  CHECK(llama3.sequence_length == 8192);  // max_position_embeddings
  same_model(llama("llama3-8b", llama3), find_model("llama3-8b"));
  CHECK(llama("x", llama3).params() == 8'030'261'248);

  const LlamaShape mixtral = read_hf_config(kData / "mixtral-8x7b-config.json");
  CHECK(mixtral.experts == 8);
  CHECK(mixtral.experts_per_token == 2);
  same_model(llama("mixtral-8x7b", mixtral), find_model("mixtral-8x7b"));
  CHECK(llama("x", mixtral).params() == 46'702'792'704);

  // Mistral 7B: Llama's block; tie_word_embeddings true drops the head's 32000 x 4096.
  const std::string mistral = R"({"architectures": ["MistralForCausalLM"], "num_hidden_layers": 32,
      "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336,
      "vocab_size": 32000, "max_position_embeddings": 32768, "sliding_window": 4096})";
  CHECK(llama("m", parse_hf_config(mistral, "mistral.json")).params() == 7'241'732'096);
  const std::string tied = mistral.substr(0, mistral.size() - 1) + R"(, "tie_word_embeddings": true})";
  CHECK(llama("m", parse_hf_config(tied, "m.json")).params() == 7'241'732'096 - 32000LL * 4096);
}

TEST_CASE("a DeepSeekMoE config gives the catalog's deepseek-moe-16b", "[hf_config]") {
  // deepseek-ai/deepseek-moe-16b-base's config.json, its shape keys.
  const std::string deepseek = R"({"architectures": ["DeepseekForCausalLM"], "num_hidden_layers": 28,
      "hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 16, "intermediate_size": 10944,
      "moe_intermediate_size": 1408, "n_routed_experts": 64, "n_shared_experts": 2, "num_experts_per_tok": 6,
      "first_k_dense_replace": 1, "moe_layer_freq": 1, "vocab_size": 102400, "max_position_embeddings": 4096,
      "tie_word_embeddings": false})";
  same_model(llama("deepseek-moe-16b", parse_hf_config(deepseek, "ds.json")), find_model("deepseek-moe-16b"));
  const std::string every_other = deepseek.substr(0, deepseek.size() - 1) + R"(, "moe_layer_freq": 2})";
  CHECK_THROWS_WITH(parse_hf_config(every_other, "ds.json"), Catch::StartsWith("ds.json: moe_layer_freq: "));
  const std::string too_many = deepseek.substr(0, deepseek.size() - 1) + R"(, "first_k_dense_replace": 29})";
  CHECK_THROWS_WITH(parse_hf_config(too_many, "ds.json"),
                    Catch::StartsWith("ds.json: first_k_dense_replace: 29 dense"));
}

TEST_CASE("a Nemotron config is the squared-ReLU, LayerNorm decoder", "[hf_config]") {
  // Nemotron-4 15B's shape (Parmar et al. 2024, table 1) as HF's NemotronConfig writes it.
  const std::string nemotron = R"({"architectures": ["NemotronForCausalLM"], "num_hidden_layers": 32,
      "hidden_size": 6144, "num_attention_heads": 48, "num_key_value_heads": 8, "intermediate_size": 24576,
      "vocab_size": 256000, "max_position_embeddings": 4096, "hidden_act": "relu2", "partial_rotary_factor": 0.5,
      "attention_bias": false, "mlp_bias": false, "tie_word_embeddings": false})";
  const LlamaShape shape = parse_hf_config(nemotron, "nemotron.json");
  CHECK(shape.mlp == MlpActivation::squared_relu);
  CHECK(shape.norm == DecoderNorm::layernorm);
  CHECK_FALSE(shape.bias);
  // Per layer: q and o 2h², k and v 2·h·1024, up and down 2·h·ffn, two LayerNorms 4h; embeddings and head 2·V·h;
  // the final LayerNorm 2h: 15.6 B, the report's 3.2 B embedding and 12.5 B other parameters.
  const std::int64_t h = 6144;
  const std::int64_t layer = 2 * h * h + 2 * h * 1024 + 2 * h * 24576 + 4 * h;
  CHECK(llama("n", shape).params() == 32 * layer + 2 * 256000 * h + 2 * h);
  const std::string swiglu = nemotron.substr(0, nemotron.size() - 1) + R"(, "hidden_act": "silu"})";
  CHECK_THROWS_WITH(parse_hf_config(swiglu, "n.json"),
                    Catch::StartsWith("n.json: hidden_act: 'silu' is not supported for Nemotron: expected relu2"));
  // Biases on every projection, or none.
  CHECK(llama("b", parse_hf_config(llama_config(R"(, "attention_bias": true, "mlp_bias": true)"), "b.json")).params() ==
        8'030'261'248 + 32 * (4096 + 2 * 1024 + 4096 + 2 * 14336 + 4096));
  CHECK_THROWS_WITH(parse_hf_config(llama_config(R"(, "attention_bias": true)"), "b.json"),
                    Catch::StartsWith("b.json: attention_bias: biases on the attention or the MLP projections alone"));
}

TEST_CASE("config.json errors name the file and the JSON key", "[hf_config]") {
  const auto fails = [](const std::string& json, const std::string& text) {
    CHECK_THROWS_WITH(parse_hf_config(json, "cfg.json"), Catch::StartsWith("cfg.json: ") && Catch::Contains(text));
  };
  // Not JSON: where the parser stopped, line and column (found by fuzzing: the place was missing).
  CHECK_THROWS_WITH(parse_hf_config("{\"architectures\": [\"LlamaForCausalLM\"],\n \"hidden_size\": NaN}", "cfg.json"),
                    Catch::StartsWith("cfg.json:2:17: not a Hugging Face config: the file is not JSON (syntax error"));
  CHECK_THROWS_WITH(parse_hf_config("{\"hidden_size\": 40\n", "cfg.json"),
                    Catch::StartsWith("cfg.json:2:1: not a Hugging Face config: the file is not JSON") &&
                        Catch::Contains("unexpected end of input"));
  fails("[1, 2]", "expected a JSON object");
  fails(R"({"architectures": ["BertModel"]})", "architectures: unknown architecture 'BertModel'");
  fails(R"({"hidden_size": 4096})", "architectures: expected a list of one architecture name");
  fails(R"({"architectures": ["LlamaForCausalLM"]})", "num_hidden_layers: missing");
  fails(llama_config(R"(, "num_key_value_heads": 5)"), "num_key_value_heads: 5 key/value heads do not divide");
  fails(llama_config(R"(, "hidden_size": 4100)"), "num_attention_heads: 32 heads do not divide the hidden size 4100");
  fails(llama_config(R"(, "vocab_size": 1.5)"), "vocab_size: expected a whole number, got 1.5");
  fails(llama_config(R"(, "vocab_size": 18446744073709551615)"), "vocab_size: expected a whole number");
  fails(llama_config(R"(, "num_hidden_layers": -2)"), "num_hidden_layers: layers must be positive, got -2");
  fails(llama_config(R"(, "tie_word_embeddings": "yes")"), "tie_word_embeddings: expected true or false");
  fails(llama_config(R"(, "head_dim": 256)"), "head_dim: 256 differs from hidden_size / num_attention_heads = 128");
  // 128 + 2^59: times the 32 heads it wraps to 4,096 in 64 bits, so a product would pass it.
  fails(llama_config(R"(, "head_dim": 576460752303423616)"),
        "head_dim: 576460752303423616 differs from hidden_size / num_attention_heads = 128");
  fails(llama_config(R"(, "num_hidden_layers": 4000000000)"), "num_hidden_layers: expected at most 10000 layers");
  fails(llama_config(R"(, "hidden_size": 4194304, "num_attention_heads": 4096)"), "beyond the 1e+18 the counts allow");
  const std::string mixtral = R"(, "architectures": ["MixtralForCausalLM"], "num_local_experts": 8)";
  fails(llama_config(mixtral), "num_experts_per_tok: missing");
  fails(llama_config(mixtral + R"(, "num_experts_per_tok": 9)"), "num_experts_per_tok: 9 experts per token");
}

TEST_CASE("config.json files that cannot be read are refused before parsing", "[hf_config]") {
  CHECK_THROWS_WITH(read_hf_config(kData / "no-such.json"), Catch::Contains("no-such.json: cannot open"));
  CHECK_THROWS_WITH(read_hf_config(kData), Catch::Contains("it is a directory"));
  CHECK_THROWS_WITH(read_hf_config("/dev/zero"), Catch::Contains("/dev/zero") && Catch::Contains("device"));
  CHECK_THROWS_AS(read_hf_config(kData / "README.md"), InputError);  // not JSON
}

TEST_CASE("config.json nested too deep is refused at the bracket, and errors never print a deep value", "[hf_config]") {
  // 200,000 arrays deep (400 KB): the error message's dump() of the value recursed until the stack overflowed.
  std::string deep = R"({"architectures": ["LlamaForCausalLM"], "num_hidden_layers": )";
  deep.append(200'000, '[');
  deep.push_back('1');
  deep.append(200'000, ']');
  deep.push_back('}');
  CHECK_THROWS_WITH(parse_hf_config(deep, "cfg.json"),
                    Catch::Equals("cfg.json:1:317: arrays and objects nested deeper than 256 levels"));
  // 256 levels read; a list in place of a number is described by its size, never printed whole.
  std::string at_limit = R"(, "vocab_size": )";
  at_limit.append(255, '[');
  at_limit.append(255, ']');
  at_limit = llama_config(at_limit);
  CHECK_THROWS_WITH(parse_hf_config(at_limit, "cfg.json"),
                    Catch::EndsWith("vocab_size: expected a whole number, got a list of 1 value"));
  std::string long_list = "[0";
  for (int i = 1; i < 1000; ++i) long_list += fmt::format(", {}", i);
  CHECK_THROWS_WITH(parse_hf_config(llama_config(R"(, "vocab_size": )" + long_list + "]"), "cfg.json"),
                    Catch::EndsWith("vocab_size: expected a whole number, got a list of 1000 values"));
  // A long string is cut at 60 characters.
  std::string long_text = R"(, "vocab_size": "x)";
  long_text.append(10'000, 'y');
  long_text.push_back('"');
  std::string shown = "got \"x";
  shown.append(58, 'y');
  shown.append("...");
  CHECK_THROWS_WITH(parse_hf_config(llama_config(long_text), "cfg.json"), Catch::EndsWith(shown));
}
