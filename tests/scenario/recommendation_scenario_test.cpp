// model.recommendation, model.embedding_sharding and model.embedding_optimizer: read, refused at their keys, and
// written back by to_yaml to the same scenario.
#include <catch2/catch.hpp>

#include <string>

#include "syncsim/compute/recommendation_model.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

const std::string kHead = "cluster: {gpu: A100-SXM4-80GB, topology: \"switch:n=4,bw=100Gbps,lat=5us\"}\nmodel:\n";
const std::string kShape =
    "  recommendation:\n"
    "    bottom_mlp: [64, 16]\n"
    "    tables:\n"
    "      - {name: user, rows: 1e6, dim: 16, zipf: 1.05}\n"
    "      - {name: item, rows: 5000, dim: 16, lookups: 20, pooling: mean, touched_share: 0.5, repeat: 3}\n"
    "    interaction: dcn\n"
    "    cross_rank: 8\n"
    "    top_mlp: [32, 1]\n";

Scenario parse_recommendation(const std::string& rest) {
  return parse_scenario(kHead + kShape + rest, "r.yaml");
}

std::string error(const std::string& text) {
  try {
    parse_scenario(kHead + text, "r.yaml");
  } catch (const InputError& e) {
    return std::to_string(e.where() ? e.where()->line : 0) + " " + e.key() + ": " + e.message();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a recommendation shape is read with its repeats and written back the same", "[scenario][recommendation]") {
  const Scenario s = parse_recommendation(
      "  embedding_sharding: {default: row_wise, user: {type: table_wise, rank: 2}, item_1: {type: column_wise, "
      "shards: 2}}\n"
      "  embedding_optimizer: adam\n"
      "  batch_per_gpu: 8\n");
  REQUIRE(s.model.recommendation.shape);
  const RecommendationShape& shape = s.model.recommendation.shape->value;
  REQUIRE(shape.tables.size() == 4);
  CHECK(shape.tables[3].name == "item_2");
  CHECK(shape.tables[1].lookups == 20);
  CHECK(shape.tables[0].zipf == 1.05);
  CHECK(shape.interaction == FeatureInteraction::dcn);
  CHECK(s.model.recommendation.optimizer.value == EmbeddingOptimizer::adam);
  REQUIRE(s.model.recommendation.sharding.tables.size() == 2);
  CHECK(s.model.recommendation.sharding.tables[0].second.value->ranks == std::vector<std::int64_t>{2});
  CHECK(s.model.recommendation.sharding.tables[1].second.value->ranks == std::vector<std::int64_t>{-1, -1});
  const std::string yaml = to_yaml(s);
  CHECK(to_yaml(parse_scenario(yaml, "again.yaml")) == yaml);
  const Scenario again = parse_scenario(yaml, "again.yaml");
  CHECK(recommendation_model("x", again.model.recommendation.shape->value).params() ==
        recommendation_model("x", shape).params());
}

TEST_CASE("a table's memory tier is read and written back the same", "[scenario][recommendation]") {
  const Scenario s = parse_recommendation(
      "  embedding_sharding: {default: {type: row_wise, compute_kernel: fused_uvm}, user: {type: table_wise, "
      "compute_kernel: fused_uvm_caching, cache_load_factor: 0.3}, item_1: {type: column_wise, shards: 2, "
      "compute_kernel: fused_uvm_caching}}\n"
      "  batch_per_gpu: 8\n");
  const auto& tables = s.model.recommendation.sharding.tables;
  REQUIRE(tables.size() == 2);
  CHECK(tables[0].second.value->kernel == EmbeddingComputeKernel::fused_uvm_caching);
  CHECK(tables[0].second.value->cache_load_factor == 0.3);
  CHECK(tables[0].second.value->ranks == std::vector<std::int64_t>{-1});  // the rank left to the planner step
  CHECK(tables[1].second.value->cache_load_factor == kDefaultCacheLoadFactor);
  CHECK(s.model.recommendation.sharding.all.value->kernel == EmbeddingComputeKernel::fused_uvm);
  const std::string yaml = to_yaml(s);
  CHECK(to_yaml(parse_scenario(yaml, "again.yaml")) == yaml);
  const Scenario again = parse_scenario(yaml, "again.yaml");
  CHECK(again.model.recommendation.sharding.tables[0].second.value->cache_load_factor == 0.3);
  CHECK(again.model.recommendation.sharding.all.value->kernel == EmbeddingComputeKernel::fused_uvm);
}

TEST_CASE("recommendation keys are refused at their place", "[scenario][recommendation]") {
  // A table's bad value at its own key and line, counted from the file's entry (repeats expanded).
  CHECK(error("  recommendation: {bottom_mlp: [16], top_mlp: [1], tables: [{name: a, rows: 10, dim: 16},\n"
              "                   {name: b, rows: 10, dim: 8}]}\n  batch_per_gpu: 1\n") ==
        "4 model.recommendation.tables[1].dim: is 8, but the bottom MLP's output and the other tables are 16: the "
        "interaction needs one dimension");
  CHECK_THAT(error(kShape + "  embedding_sharding: column_wise\n  batch_per_gpu: 1\n"),
             Catch::Contains("model.embedding_sharding: column_wise needs its shards"));
  CHECK_THAT(error(kShape + "  embedding_sharding: {user: {type: row_wise, rank: 1}}\n  batch_per_gpu: 1\n"),
             Catch::Contains("model.embedding_sharding.user.rank: does not apply to row_wise"));
  CHECK_THAT(error(kShape + "  embedding_optimizer: adamw\n  batch_per_gpu: 1\n"),
             Catch::Contains("model.embedding_optimizer"));
  CHECK_THAT(error(kShape + "  sequence_length: 10\n  batch_per_gpu: 1\n"),
             Catch::Contains("not a recommendation model"));
  CHECK_THAT(error(kShape + "  layers: [{name: a, params: 1, forward_flops: 1}]\n  batch_per_gpu: 1\n"),
             Catch::Contains("model.recommendation: defines the model, and so does model.layers"));
}
