// One answer at frontier scale: three points of issue 40's question (Llama 3 405B at a 16M-token batch, H100 and
// B200, 400 and 200 Gb/s rails, --layouts auto) searched as `syncsim plan` searches them, and each chosen layout
// run as `syncsim run --set ...` runs it: the same iteration, to the picosecond.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "syncsim/planner/layout_search.hpp"
#include "syncsim/planner/plan_batch.hpp"
#include "syncsim/planner/plan_grid.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;
using namespace syncsim::planner;

TEST_CASE("three frontier points of the 405B plan run at the numbers the plan gives them") {
  const std::string scenario = std::string(SYNCSIM_EXAMPLES_DIR "/llama3-405b-plan.yaml");
  const Scenario base = load_scenario(scenario);
  const PlanGrid grid{{2048, 4096, 8192},
                      {"H100-SXM-80GB", "B200"},
                      parse_networks({"ib400=dgx:gpus=8,nic_bw=400Gbps", "ib200=dgx:gpus=8,nic_bw=200Gbps"})};
  const std::vector<SweepPoint> points = plan_points(base, grid);
  const PlanBatch batch = plan_batch(base, std::nullopt);
  // Points are GPU type x network x count: H100 on 400 Gb/s at 2,048; H100 on 200 Gb/s at 8,192; B200 on
  // 400 Gb/s at 4,096.
  const std::vector<std::size_t> sampled = {0, 5, 7};
  const LayoutSearchOptions options{.space = layout_space(base), .memory_headroom = 0, .max_simulations = 2};
  run::Workspace workspace;
  for (const std::size_t i : sampled) {
    const SweepPoint& point = points.at(i);
    INFO(point.labels[0] << " / " << point.labels[1] << " / " << point.labels[2]);
    const SearchedPoint found = search_layouts(scenario, point, batch.at(point_gpus(point)), options, workspace);
    INFO(found.label);
    CHECK(found.stats.simulated >= 1);
    const TrainingReport again = run::run_scenario(load_scenario(scenario, found.overrides)).report;
    CHECK(again.iteration_mean == found.report.iteration_mean);
    CHECK(again.samples_per_second == found.report.samples_per_second);
    CHECK(again.global_batch == 2048);
  }
}
