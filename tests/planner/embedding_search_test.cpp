// The planner's search over embedding placements (embedding_search.hpp): the mixes it enumerates, a case where only
// a placement in host memory fits and the search finds it, a case where its pick beats the scenario's hand placement,
// `syncsim run` of its overrides giving its numbers, and determinism.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "syncsim/planner/embedding_search.hpp"
#include "syncsim/run/recommendation_probe.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;
using namespace syncsim::planner;

namespace {

const std::string kHand = std::string(SYNCSIM_PLANNER_DATA "/tiny-dlrm-hand.yaml");
const std::string kSeed = std::string(SYNCSIM_EXAMPLES_DIR "/recsys-100b-64xa100.yaml");

SweepPoint point_at(std::int64_t gpus) {
  return {.index = 0,
          .labels = {"A100-SXM4-80GB", "scenario", std::to_string(gpus)},
          .overrides = {fmt::format("cluster.workers={}", gpus)}};
}

LayoutSearchOptions options() {
  return {.space = {}, .memory_headroom = 0, .max_simulations = 8};
}

}  // namespace

TEST_CASE("the mixes: large tables x small tables, each one override", "[planner][embedding]") {
  // One table above the mean's elements (2,000,000 x 64 x 7 tables > 2,300,000 x 64), six below.
  const Scenario s = load_scenario(kHand);
  const std::vector<EmbeddingMix> mixes = embedding_mixes(s.model.recommendation.shape->value.tables, 8);
  // 64 columns: 2 column-wise shards of 32; so 8 large options x 3 small ones.
  REQUIRE(mixes.size() == 8 * 3);
  for (const EmbeddingMix& m : mixes) {
    REQUIRE(m.overrides.size() == 1);
    CHECK(m.overrides[0].starts_with("model.embedding_sharding={default: "));
    CHECK(m.label.starts_with("big "));
    (void)load_scenario(kHand, m.overrides);  // every mix is a valid scenario
  }
  // Tables all alike have none above the mean: only the small tables' three.
  const std::vector<EmbeddingTable> even(4, EmbeddingTable{.name = "e", .rows = 100, .dim = 16});
  CHECK(embedding_mixes(even, 4).size() == 3);
}

TEST_CASE("the search beats the hand placement, and syncsim run of its pick gives its numbers",
          "[planner][embedding]") {
  run::Workspace workspace;
  const SearchedPoint s = search_embedding_placements(kHand, point_at(8), 8 * 256, options(), workspace);
  const TrainingReport hand = run::run_scenario(load_scenario(kHand, {"cluster.workers=8"})).report;
  CHECK(s.label != "the scenario's placement");
  CHECK(s.report.iteration_mean < hand.iteration_mean);
  CHECK(s.stats.simulated >= 2);  // the scenario's own first, then at least one that beat it
  const TrainingReport again = run::run_scenario(load_scenario(kHand, s.overrides)).report;
  CHECK(again.iteration_mean == s.report.iteration_mean);
  CHECK(to_json(again).dump() == to_json(s.report).dump());
  // Deterministic: the same search gives the same pick.
  run::Workspace other;
  const SearchedPoint t = search_embedding_placements(kHand, point_at(8), 8 * 256, options(), other);
  CHECK(t.label == s.label);
  CHECK(t.overrides == s.overrides);
  CHECK(to_json(t.report).dump() == to_json(s.report).dump());
}

TEST_CASE("on 2 A100s only a placement in host memory fits the 100 B model, and the search finds it",
          "[planner][embedding]") {
  // 377 GiB of tables and Adagrad state: no placement in GPU memory fits 2 x 80 GiB; in host memory they take half
  // each of the GPUs' 256 GiB shares, and a 0.2 cache fits beside the dense part.
  run::Workspace workspace;
  const SearchedPoint s = search_embedding_placements(kSeed, point_at(2), 2 * 1024, options(), workspace);
  CHECK_THAT(s.label, Catch::Contains("fused_uvm"));
  CHECK(s.report.memory.fits);
  CHECK(s.stats.not_fitting >= 4);  // the scenario's own, and every mix of fused large tables
  const TrainingReport again = run::run_scenario(load_scenario(kSeed, s.overrides)).report;
  CHECK(again.iteration_mean == s.report.iteration_mean);
  bool host_group = false;
  for (const GroupCommunication& g : s.report.group_communication) host_group = host_group || g.group == "host-memory";
  CHECK(host_group);
}

TEST_CASE("no simulated placement is faster than its lower bound", "[planner][embedding]") {
  // The bound prunes: it must never exceed what the run gives, for every mix (host tiers included).
  const Scenario s = load_scenario(kHand);
  run::Workspace workspace;
  for (const EmbeddingMix& m : embedding_mixes(s.model.recommendation.shape->value.tables, 8)) {
    std::vector<std::string> overrides{"cluster.workers=8"};
    overrides.insert(overrides.end(), m.overrides.begin(), m.overrides.end());
    const Scenario candidate = load_scenario(kHand, overrides);
    const auto probe = run::probe_recommendation(candidate, workspace);
    REQUIRE(probe);
    const TrainingReport r = run::run_scenario(candidate, workspace).report;
    INFO(m.label);
    CHECK(probe->lower_bound <= r.iteration_mean);
    CHECK(probe->lower_bound > SimTime::zero());
  }
}

TEST_CASE("with the tables on parameter servers the search is over server counts", "[planner][embedding]") {
  SweepPoint point = point_at(8);
  point.overrides.push_back("training.communication=parameter_server");
  point.overrides.push_back("training.parameter_servers.count=3");
  run::Workspace workspace;
  const SearchedPoint s = search_embedding_placements(kHand, point, 8 * 256, options(), workspace);
  // 1, 2, 4, 8 and the scenario's 3: five counts, all simulated (no bound prunes them), the fastest chosen.
  CHECK(s.stats.candidates == 1 + 5);  // the scenario's own (3 servers) and the five counts
  CHECK(s.stats.simulated == 6);
  CHECK(s.stats.pruned == 0);
  CHECK(s.label.ends_with(" server(s)"));
  const TrainingReport again = run::run_scenario(load_scenario(kHand, s.overrides)).report;
  CHECK(again.iteration_mean == s.report.iteration_mean);
  for (const std::string count : {"1", "2", "4", "8"}) {
    const TrainingReport r =
        run::run_scenario(load_scenario(kHand, {"cluster.workers=8", "training.communication=parameter_server",
                                                fmt::format("training.parameter_servers.count={}", count)}))
            .report;
    CHECK(s.report.iteration_mean <= r.iteration_mean);
  }
}
