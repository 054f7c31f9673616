// A recommendation model's tables in host memory (embedding_tiers.hpp) end to end: the memory report's tiers, the
// host link's bytes and time in the iteration in closed form, and the refusals at their keys.
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

// kRecommendationScenario: four tables of 100,000 x 16 on 4 A100s (PCIe Gen4: 32 GB/s each way; DGX A100: 2 TiB of
// host memory for 8 GPUs), one id per sample, 32 samples per GPU in fp32, each table whole on its own GPU.
constexpr const char* kCached =
    "model.embedding_sharding.t_0={type: table_wise, rank: 0, compute_kernel: fused_uvm_caching, "
    "cache_load_factor: 0.25}";

Scenario tiers_scenario(const std::vector<std::string>& overrides = {}) {
  return parse_scenario(kRecommendationScenario, "tiers.yaml", overrides);
}

const GroupCommunication* tier_group(const TrainingReport& r, const std::string& name) {
  for (const GroupCommunication& g : r.group_communication) {
    if (g.group == name) return &g;
  }
  return nullptr;
}

std::string error_of(const std::vector<std::string>& overrides) {
  try {
    (void)run::scenario_recommendation_memory(tiers_scenario(overrides));
  } catch (const InputError& e) {
    return e.key() + ": " + e.message();
  }
  return "no error";
}

}  // namespace

TEST_CASE("syncsim memory gives each table's tier, GPU bytes, host bytes and hit rate", "[run][recommendation]") {
  const run::RecommendationMemory m = *run::scenario_recommendation_memory(tiers_scenario({kCached}));
  const run::TableMemory& t0 = m.tables[0];
  CHECK(t0.sharding.kernel == EmbeddingComputeKernel::fused_uvm_caching);
  CHECK(t0.largest.value == 25000 * 16 * 4);              // the cache: a quarter of the rows, weights alone
  CHECK(t0.host_largest.value == 100000 * (16 * 4 + 4));  // the table and its Adagrad state in host memory
  CHECK(t0.hit_rate == Approx(0.25));                     // uniform ids: the cached share
  CHECK(m.tables[1].host_largest.value == 0);
  CHECK(m.tables[1].hit_rate == 1);
  CHECK(m.host_capacity->value == 2048LL * 1024 * 1024 * 1024 / 8);
  CHECK(m.fullest_host_rank == 0);
  CHECK(m.host_on_fullest == t0.host_largest);
}

TEST_CASE("the misses cross the host link in forward and back in backward, exposed", "[run][recommendation]") {
  const TrainingReport fused = run::run_scenario(tiers_scenario()).report;
  const TrainingReport cached = run::run_scenario(tiers_scenario({kCached})).report;
  // GPU 0 pools all 4 x 32 samples' one id of t_0: 128 lookups, 0.75 missed, 64 bytes each, both ways.
  const double bytes = 128 * 0.75 * 64;
  const GroupCommunication* host = tier_group(cached, "host-memory");
  REQUIRE(host != nullptr);
  CHECK(host->bytes_per_gpu == Approx(2 * bytes));
  CHECK(tier_group(fused, "host-memory") == nullptr);
  // Everything else is the same placement: the iteration grows by the two transfers at 32 GB/s, within a ps each.
  const SimTime extra = SimTime::from_seconds(2 * bytes / 32e9);
  CHECK(std::abs((cached.iteration_mean - fused.iteration_mean - extra).ps()) <= 2);
  CHECK(host->exposed.ps() == Approx(static_cast<double>(extra.ps())).margin(2));
  // fused_uvm: every lookup misses.
  const TrainingReport uvm =
      run::run_scenario(tiers_scenario({"model.embedding_sharding.t_0={type: table_wise, rank: 0, compute_kernel: "
                                        "fused_uvm}"}))
          .report;
  CHECK(tier_group(uvm, "host-memory")->bytes_per_gpu == Approx(2 * 128 * 64));
}

TEST_CASE("a placement over a GPU's host memory is refused by name", "[run][recommendation]") {
  // The seed's 100 B model on one A100, every table row-wise in host memory: 377 GiB of tables and Adagrad state
  // against the 256 GiB share of a DGX A100's 2 TiB.
  const std::string file = std::string(SYNCSIM_EXAMPLES_DIR "/recsys-100b-64xa100.yaml");
  try {
    (void)run::scenario_recommendation_memory(load_scenario(
        file,
        {"cluster.workers=1", "model.embedding_sharding={default: {type: row_wise, compute_kernel: fused_uvm}}"}));
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.key() == "model.embedding_sharding.default");
    CHECK_THAT(e.message(), Catch::Contains("GPU 0's tables in host memory take 377."));
    CHECK_THAT(e.message(), Catch::Contains("t0 75.09 GiB"));
    CHECK_THAT(e.message(), Catch::Contains("over its 256.00 GiB share"));
  }
}

TEST_CASE("host-memory keys are checked where they are written", "[run][recommendation]") {
  CHECK_THAT(error_of({"model.embedding_sharding.t_1={type: data_parallel, compute_kernel: fused_uvm}"}),
             Catch::Contains("compute_kernel: a data_parallel table is a dense parameter"));
  CHECK_THAT(error_of({"model.embedding_sharding.t_1={type: row_wise, cache_load_factor: 0.5}"}),
             Catch::Contains("cache_load_factor: sizes the GPU cache of compute_kernel: fused_uvm_caching"));
  CHECK_THAT(error_of({"model.embedding_sharding.t_1={type: row_wise, compute_kernel: fused_uvm_caching, "
                       "cache_load_factor: 2}"}),
             Catch::Contains("expected the cached share of the table's rows, in (0, 1]"));
  CHECK_THAT(error_of({"model.embedding_sharding.t_1={type: row_wise, compute_kernel: uvm}"}),
             Catch::Contains("compute_kernel"));
  // A GPU with no reference node has no host link or host memory to put a table in.
  CHECK_THAT(error_of({"cluster.gpu=RTX-4090", kCached}),
             Catch::Contains("no reference node's host memory in the catalog"));
}
