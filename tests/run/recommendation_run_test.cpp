// Recommendation models end to end (recommendation_run.cpp): the report's embedding all-to-all bytes per GPU in
// closed form for table-wise and row-wise placements, memory per GPU under each placement, the seed's 100 B model
// (examples/recsys-100b-64xa100.yaml), determinism, and the errors at their keys.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "syncsim/core/input_error.hpp"
#include "syncsim/run/recommendation_memory.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/training/training_report.hpp"
#include "tiny_recommendation.hpp"

using namespace syncsim;

namespace {

Scenario recommendation_scenario(const std::vector<std::string>& overrides = {}) {
  return parse_scenario(kRecommendationScenario, "tiny.yaml", overrides);
}

const GroupCommunication& embedding(const TrainingReport& r) {
  for (const GroupCommunication& g : r.group_communication) {
    if (g.group == "embedding") return g;
  }
  FAIL("no embedding group");
  return r.group_communication.front();
}

std::string examples(const std::string& name) {
  return std::string(SYNCSIM_EXAMPLES_DIR "/") + name;
}

}  // namespace

TEST_CASE("table-wise: the ids' and the pooled embeddings' all-to-all bytes per GPU", "[run][recommendation]") {
  const TrainingReport r = run::run_scenario(recommendation_scenario()).report;
  // Ids: each GPU sends its 32 samples' id (8 bytes) and length (4) to the 3 other tables' owners: 3 x 32 x 12.
  // Pooled: each owner sends 32 x 16 fp32 to each of 3 others, forward and (gradients) backward.
  const double ids = 3 * 32 * 12;
  const double pooled = 3 * 32 * 16 * 4;
  CHECK(embedding(r).bytes_per_gpu == Approx(ids + 2 * pooled));
  CHECK(embedding(r).exposed > SimTime::zero());
  CHECK(r.memory.fits);
}

TEST_CASE("row-wise: the reduce-scatter of partial sums and the all-gather of their gradients",
          "[run][recommendation]") {
  const TrainingReport r =
      run::run_scenario(
          parse_scenario(
              std::string(kRecommendationScenario)
                      .substr(0, std::string(kRecommendationScenario).find("  embedding_sharding")) +
                  "  embedding_sharding: row_wise\n  batch_per_gpu: 32\ntraining: {strategy: sync, iterations: 3}\n",
              "rw.yaml"))
          .report;
  // Partial sums of all W x B samples x 64 columns, fp32: each GPU sends (W-1)/W of them each way.
  const double partial = 3.0 / 4 * 4 * 32 * 64 * 4;
  // Ids: 3/4 of each table's 32 ids, and 32 lengths to each of 3 others, per table.
  const double ids = 4 * (3.0 / 4 * 32 * 8 + 3 * 32 * 4);
  CHECK(embedding(r).bytes_per_gpu == Approx(ids + 2 * partial));
}

TEST_CASE("memory per GPU follows the placement", "[run][recommendation]") {
  const auto memory = [](const std::string& sharding) {
    return *run::scenario_recommendation_memory(recommendation_scenario({"model.embedding_sharding=" + sharding}));
  };
  // Row-wise Adagrad: 16 x 4 bytes a row, + 4 for the row's state.
  const run::RecommendationMemory table_wise = memory("table_wise");
  CHECK(table_wise.tables[0].largest.value == 100000 * (16 * 4 + 4));
  CHECK(table_wise.embeddings.value == 100000 * (16 * 4 + 4));  // the planner spread them one per GPU
  const run::RecommendationMemory row_wise = memory("row_wise");
  CHECK(row_wise.tables[0].on_fullest.value == 25000 * (16 * 4 + 4));
  // Replicated, each table keeps weights, gradients and Adam's two moments on every GPU.
  const run::RecommendationMemory replicated = memory("data_parallel");
  CHECK(replicated.embeddings.value == 4 * 100000 * 16 * (4 + 4 + 8));
  CHECK(replicated.report.total > row_wise.report.total);
}

TEST_CASE("the seed's 100 B model fits on 64 A100s only sharded", "[run][recommendation]") {
  const std::string file = examples("recsys-100b-64xa100.yaml");
  const auto memory = [&](const std::vector<std::string>& overrides) {
    return *run::scenario_recommendation_memory(load_scenario(file, overrides));
  };
  const run::RecommendationMemory sharded = memory({});
  CHECK(sharded.report.fits);
  CHECK_FALSE(memory({"model.embedding_sharding=data_parallel"}).report.fits);
  CHECK_FALSE(memory({"cluster.workers=1"}).report.fits);
}

TEST_CASE("a recommendation run is deterministic and names its bottleneck", "[run][recommendation]") {
  const TrainingReport a = run::run_scenario(recommendation_scenario()).report;
  const TrainingReport b = run::run_scenario(recommendation_scenario()).report;
  CHECK(to_json(a).dump() == to_json(b).dump());
  CHECK_FALSE(a.bottleneck.bound.empty());
}

TEST_CASE("recommendation errors name their key", "[run][recommendation]") {
  const auto message = [](const std::vector<std::string>& overrides) {
    try {
      run::run_scenario(recommendation_scenario(overrides));
    } catch (const InputError& e) {
      return e.key() + ": " + e.message();
    }
    return std::string("no error");
  };
  CHECK_THAT(message({"model.embedding_sharding.t_9=row_wise"}),
             Catch::Contains("model.embedding_sharding.t_9: the model has no table 't_9'"));
  CHECK_THAT(message({"model.embedding_sharding.t_0.rank=7"}), Catch::Contains("rank 7 is not one of the 4 GPUs"));
  CHECK_THAT(message({"parallelism.tensor=2"}), Catch::Contains("shards its tables, not its layers"));
  CHECK_THROWS_WITH(recommendation_scenario({"model.embedding_sharding=column_wise"}),
                    Catch::Contains("column_wise needs its shards"));
}
