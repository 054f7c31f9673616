// model.transformer and model.hf_config: a decoder from its shape, every bad value refused at its key.
#include <catch2/catch.hpp>

#include <string>

#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {
const std::string kH100Cluster = "cluster: {gpu: H100-SXM-80GB, topology: \"switch:n=8,bw=400Gbps,lat=5us\"}\n";

Scenario parse_transformer(const std::string& model) {
  return parse_scenario(kH100Cluster + model, "t.yaml");
}
ModelSpec built(const Scenario& s) {
  REQUIRE(s.model.transformer);
  return llama(s.model.name.value, s.model.transformer->value);
}
}  // namespace

TEST_CASE("a transformer block builds the catalog's model from the same shape", "[scenario][transformer]") {
  const Scenario mixtral = parse_transformer(
      "model:\n"
      "  name: my-mixtral\n"
      "  transformer: {layers: 32, hidden: 4096, heads: 32, kv_heads: 8, ffn: 14336, vocab: 32000, seq: 32768,\n"
      "                experts: 8, experts_per_token: 2}\n"
      "  batch_per_gpu: 1\n");
  CHECK(mixtral.model.name.value == "my-mixtral");
  const ModelSpec m = built(mixtral);
  CHECK(m.params() == find_model("mixtral-8x7b").params());
  CHECK(m.forward_flops() == find_model("mixtral-8x7b").forward_flops());
  // Defaults: kv_heads = heads, dense, untied, flash; model.attention: eager is today's three kernels.
  const Scenario small = parse_transformer(
      "model: {transformer: {layers: 2, hidden: 256, heads: 4, ffn: 512, vocab: 1000, seq: 128}, batch_per_gpu: 1,\n"
      "        attention: eager}\n");
  CHECK(small.model.name.value == "custom-model");
  CHECK(small.model.transformer->value.experts == 1);
  CHECK(small.model.transformer->value.attention == AttentionKernel::eager);
  CHECK(built(small).params() == 2 * (4 * 256 * 256 + 3 * 256 * 512 + 2 * 256) + 2 * 1000 * 256 + 256);
  // Written back as its shape, and read again to the same model.
  CHECK(built(parse_scenario(to_yaml(mixtral), "again.yaml")).params() == m.params());
}

TEST_CASE("the decoder's parts make GPT-3's block, written back as given", "[scenario][transformer]") {
  const Scenario gpt3 = parse_transformer(
      "model:\n"
      "  transformer: {layers: 96, hidden: 12288, heads: 96, ffn: 49152, vocab: 50257, seq: 2048, mlp: gelu,\n"
      "                norm: layernorm, positions: learned, bias: true, dropout: true, tied_embeddings: true}\n"
      "  batch_per_gpu: 1\n");
  const ModelSpec m = built(gpt3);
  CHECK(m.params() == find_model("gpt3-175b").params());
  CHECK(m.forward_flops() == find_model("gpt3-175b").forward_flops());
  const std::string written = to_yaml(gpt3);
  CHECK(written.find("mlp: gelu") != std::string::npos);
  CHECK(written.find("positions: learned") != std::string::npos);
  const Scenario again = parse_scenario(written, "again.yaml");
  CHECK(built(again).params() == m.params());
  CHECK(again.model.transformer->value.dropout);
  CHECK(again.model.transformer->value.norm == DecoderNorm::layernorm);
  // LLaMA's parts are the defaults and are not written.
  const Scenario llama_default = parse_transformer(
      "model: {transformer: {layers: 2, hidden: 256, heads: 4, ffn: 512, vocab: 1000, seq: 128}, batch_per_gpu: 1}\n");
  CHECK(to_yaml(llama_default).find("mlp:") == std::string::npos);
}

TEST_CASE("an hf_config scenario gives exactly the catalog model's parameters", "[scenario][transformer]") {
  const std::string dir = SYNCSIM_COMPUTE_DATA;
  const Scenario llama3 =
      parse_transformer("model: {hf_config: " + dir + "/llama3-8b-config.json, batch_per_gpu: 1}\n");
  CHECK(built(llama3).params() == find_model("llama3-8b").params());
  CHECK(built(llama3).params() == 8'030'261'248);
  const Scenario mixtral = parse_transformer("model: {hf_config: " + dir +
                                             "/mixtral-8x7b-config.json, sequence_length: 4096, batch_per_gpu: 1}\n");
  CHECK(built(mixtral).params() == 46'702'792'704);
  CHECK(built(mixtral).forward_flops() == find_model("mixtral-8x7b", {.sequence_length = 4096}).forward_flops());
  // The written scenario carries the shape, not the file.
  CHECK(to_yaml(mixtral).find("hf_config") == std::string::npos);
  CHECK(built(parse_scenario(to_yaml(mixtral), "again.yaml")).forward_flops() == built(mixtral).forward_flops());
}

TEST_CASE("transformer shape errors point at the key", "[scenario][transformer]") {
  const auto fails = [](const std::string& shape, const std::string& expected) {
    const std::string yaml = kH100Cluster + "model:\n  batch_per_gpu: 1\n  transformer: {" + shape + "}\n";
    CHECK_THROWS_WITH(parse_scenario(yaml, "t.yaml"), Catch::StartsWith(expected));
  };
  const std::string base = "layers: 2, hidden: 256, heads: 4, ffn: 512, vocab: 1000, seq: 128";
  fails(base + ", kv_heads: 3", "t.yaml:4:94: model.transformer.kv_heads: 3 key/value heads do not divide the 4 heads");
  fails("layers: 2, hidden: 250, heads: 4, ffn: 512, vocab: 1000, seq: 128",
        "t.yaml:4:48: model.transformer.heads: 4 heads do not divide the hidden size 250");
  fails(base + ", experts: 4, experts_per_token: 5", "t.yaml:4:115: model.transformer.experts_per_token: 5 experts");
  fails(base + ", kv_heads: 0", "t.yaml:4:94: model.transformer.kv_heads: expected a whole number of at least 1");
  fails("layers: 0, hidden: 256, heads: 4, ffn: 512, vocab: 1000, seq: 128",
        "t.yaml:4:25: model.transformer.layers: expected a whole number of at least 1");
  fails("layers: 2, hidden: 256, heads: 4, ffn: 512, vocab: 1000",
        "t.yaml:4:16: model.transformer.seq: missing required key 'seq' (tokens per sample)");
  fails("layers: 100000000, hidden: 65536, heads: 64, ffn: 262144, vocab: 1000, seq: 1000000",
        "t.yaml:4:25: model.transformer.layers: expected at most 10000 layers, got 100000000");
  fails("layers: 1000, hidden: 65536, heads: 64, ffn: 262144, vocab: 1000, seq: 1000000",
        "t.yaml:4:16: model.transformer: the model would have about");
  fails(base + ", experts: 2.5", "t.yaml:4:93: model.transformer.experts: expected a whole number");
  fails(base + ", mlp: relu", "t.yaml:4:89: model.transformer.mlp: unknown value 'relu'");
  fails(base + ", norm: batchnorm", "t.yaml:4:90: model.transformer.norm: unknown value 'batchnorm'");
  fails(base + ", positions: alibi", "t.yaml:4:95: model.transformer.positions: unknown value 'alibi'");
  fails(base + ", bias: 2", "t.yaml:4:90: model.transformer.bias: expected");
  const auto model_fails = [](const std::string& model, const std::string& expected) {
    CHECK_THROWS_WITH(parse_scenario(kH100Cluster + "model: {" + model + "}\n", "t.yaml"), Catch::StartsWith(expected));
  };
  const std::string shape = "transformer: {layers: 2, hidden: 256, heads: 4, ffn: 512, vocab: 1000, seq: 128}";
  model_fails(
      shape + ", batch_per_gpu: 1, sequence_length: 64",
      "t.yaml:2:126: model.sequence_length: shapes a catalog model or an hf_config: give model.transformer.seq");
  model_fails(shape + ", batch_per_gpu: 1, attention: fast",
              "t.yaml:2:120: model.attention: unknown value 'fast' (did you mean 'flash'?)");
  model_fails("layers: [{name: a, params: 1}], " + shape + ", batch_per_gpu: 1",
              "t.yaml:2:54: model.transformer: defines the model, and so does model.layers: give one");
}
