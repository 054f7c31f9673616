// tp_comm_overlap's GEMMs in pieces (split_gemms.cpp) in a Megatron layout: dgxc's Llama 3.1 70B (TP 4, CP 2,
// micro-batch 1: 4,096 tokens a rank) under its userbuffers configuration, each run's pieces and added time against
// the hand-worked ratios of tests/compute/split_gemm_test.cpp; the layer times carry them.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "resolved_scenario.hpp"  // sim/run/src
#include "syncsim/compute/compute_model.hpp"
#include "syncsim/run/workspace.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

const std::filesystem::path kScenario = std::filesystem::path(SYNCSIM_LLM_SCENARIOS) / "dgxc-llama3.1-70b-64gpu.yaml";

// One rank's product of `rows` x `cols` x 4,096 tokens at the constant roofline's 0.7 of the H100's BF16 peak.
double product(double rows, double cols) {
  return 2.0 * 4096 * rows * cols / (989.4e12 * kDefaultEfficiency);
}

struct Resolved {
  explicit Resolved(std::vector<std::string> overrides) : scenario(load(std::move(overrides))), context(scenario, ws) {}
  static Scenario load(std::vector<std::string> overrides) {
    overrides.emplace_back("cluster.speed_spread=0");
    return load_scenario(kScenario, overrides);
  }
  Scenario scenario;
  run::Workspace ws;
  run::ResolvedScenario context;
};

double seconds(const std::vector<SimTime>& times) {
  SimTime total;
  for (const SimTime t : times) total += t;
  return total.seconds();
}

}  // namespace

TEST_CASE("dgxc's Llama 3.1 70B splits its ring-exchange and pipelined GEMMs in 4, at a cost where a piece's tile is") {
  const Resolved on({});
  const std::vector<run::SplitGemmCost> runs = on.context.split_gemm_costs(0, 1, on.context.rank_split());
  REQUIRE(runs.size() == 4);
  // QKV (linear_qkv, 10240 / 4 = 2560 wide): ring exchange forward, bulk backward. Its pieces keep the whole's
  // 256x128 tiles and pool into its waves: nothing.
  CHECK(runs[0].forward_pieces == 4);
  CHECK(runs[0].backward_pieces == 1);
  CHECK(runs[0].layers.size() == 3);
  CHECK(seconds(runs[0].forward) == 0);
  CHECK(seconds(runs[0].backward) == 0);
  // The projection: pipelined in 4 forward, nothing; its output gradient's ring exchange splits the input-gradient
  // product (4096 x 2048 x 8192) in 4, each piece on 128x128 tiles: 4/3 of it (tests/compute/split_gemm_test.cpp).
  CHECK(runs[1].forward_pieces == 4);
  CHECK(runs[1].backward_pieces == 4);
  CHECK(seconds(runs[1].forward) == 0);
  CHECK(seconds(runs[1].backward) == Approx(product(8192, 2048) / 3).epsilon(1e-6));
  // FC1 and FC2: their pieces (1024 x 14336, 1024 x 7168) keep 256x128 tiles, nothing.
  CHECK(runs[2].forward_pieces == 4);
  CHECK(runs[3].backward_pieces == 4);
  CHECK(seconds(runs[2].forward) + seconds(runs[2].backward) + seconds(runs[3].forward) + seconds(runs[3].backward) ==
        0);

  // The layer times carry it, on the projection's backward alone, against the same layout without the overlap.
  const Resolved off({"parallelism.tp_comm_overlap=false"});
  CHECK(off.context.split_gemm_costs(0, 1, off.context.rank_split()).empty());
  const LayerTimes with = on.context.layer_times();
  const LayerTimes without = off.context.layer_times();
  const std::size_t projection = runs[1].layers.front();
  CHECK((with.backward[projection] - without.backward[projection]) == runs[1].backward.front());
  CHECK(with.forward[projection] == without.forward[projection]);
  const std::size_t q = runs[0].layers.front();
  CHECK(with.forward[q] == without.forward[q]);
  // Every block alike.
  CHECK(on.context.split_gemm_costs(79, 1, on.context.rank_split()).size() == 4);
}

TEST_CASE("TE's aggregate ring runs t/2 pieces, and a layout without a tensor split none") {
  // In pairs the projection's input gradient runs as 2 pieces of 2048 rows, 8 x 16 = 128 tiles of 256x128 each, one
  // wave; together 256 in the whole's 2 waves: nothing lost.
  const Resolved pairs({"parallelism.tp_comm_overlap.proj_dgrad.aggregate=1"});
  const auto runs = pairs.context.split_gemm_costs(0, 1, pairs.context.rank_split());
  REQUIRE(runs.size() == 4);
  CHECK(runs[1].backward_pieces == 2);
  CHECK(seconds(runs[1].backward) == 0);
  const Resolved tp1({"parallelism.tensor=1", "parallelism.tp_comm_overlap=false", "parallelism.pipeline=16"});
  CHECK(tp1.context.split_gemm_costs(0, 1, tp1.context.rank_split()).empty());
}
