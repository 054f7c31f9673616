// A plan's uncertainty (--seeds, --risk): the runs' seeds, the nearest-rank quantiles, and end to end on the
// jittered straggler example: the spread holds the one-seed answer and is the same on every run.
#include <catch2/catch.hpp>

#include <string>

#include "syncsim/core/input_error.hpp"
#include "syncsim/planner/plan_grid.hpp"
#include "syncsim/planner/seed_spread.hpp"
#include "syncsim/planner/sweep_runner.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;
using namespace syncsim::planner;

namespace {

PlanPoint run_at(double samples_per_s) {
  PlanPoint p;
  p.samples_per_s = samples_per_s;
  return p;
}

// The straggler example's 32-GPU point over `seeds` seeds, at `risk`.
PlanPoint straggler_point(std::int64_t seeds, RiskQuantile risk) {
  const std::string file = std::string(SYNCSIM_EXAMPLES_DIR "/strategies-64gpu-stragglers.yaml");
  const Scenario base = load_scenario(file);
  PlanGrid grid{{32}, {base.cluster.gpu.name.value}, {{"scenario", std::nullopt}}};
  const std::vector<SweepPoint> points = with_seeds(plan_points(base, grid), base.seed, seeds);
  std::vector<std::size_t> all;
  for (const SweepPoint& p : points) all.push_back(p.index);
  std::vector<PlanPoint> runs(points.size());
  run_points(file, points, all, 2, [&](std::size_t i, const TrainingReport& r) { runs[i] = plan_point(points[i], r); });
  return at_risk(std::move(runs), risk);
}

}  // namespace

TEST_CASE("each point runs with the scenario's seed and the next ones") {
  const std::vector<SweepPoint> points{{0, {"a"}, {"cluster.workers=8"}}, {1, {"b"}, {"cluster.workers=16"}}};
  const std::vector<SweepPoint> runs = with_seeds(points, 41, 3);
  REQUIRE(runs.size() == 6);
  CHECK(runs[0].overrides == std::vector<std::string>{"cluster.workers=8"});
  CHECK(runs[2].overrides == std::vector<std::string>{"cluster.workers=8", "seed=43"});
  CHECK(runs[4].overrides == std::vector<std::string>{"cluster.workers=16", "seed=42"});
  CHECK(runs[5].index == 5);
  CHECK(with_seeds(points, 41, 1).size() == 2);
  CHECK_THROWS_WITH(with_seeds(points, 41, 0), Catch::Contains("--seeds: expected a count from 1 to 1000"));
  CHECK_THROWS_WITH(parse_risk("p99"), Catch::Contains("--risk: expected p10, p50 or p90"));
}

TEST_CASE("a point's spread is nearest-rank over its runs, and --risk picks the run that stands for it") {
  // Ten runs 1..10 (shuffled): p10 = the 1st, p50 = the 5th, p90 = the 9th.
  std::vector<PlanPoint> runs;
  for (const double v : {7, 3, 10, 1, 5, 9, 2, 8, 4, 6}) runs.push_back(run_at(v));
  const PlanPoint median = at_risk(runs, RiskQuantile::p50);
  REQUIRE(median.spread);
  CHECK(median.spread->seeds == 10);
  CHECK(median.spread->p10 == 1);
  CHECK(median.spread->p50 == 5);
  CHECK(median.spread->p90 == 9);
  CHECK(median.samples_per_s == 5);
  CHECK(at_risk(runs, RiskQuantile::p10).samples_per_s == 1);
  CHECK(at_risk(runs, RiskQuantile::p90).samples_per_s == 9);
  CHECK_FALSE(at_risk({run_at(3)}, RiskQuantile::p10).spread);
}

TEST_CASE("eight seeds on the jittered straggler example: the spread holds the one-seed answer, the same every run") {
  const PlanPoint one = straggler_point(1, RiskQuantile::p50);
  const PlanPoint eight = straggler_point(8, RiskQuantile::p50);
  REQUIRE(eight.spread);
  CHECK(eight.spread->p10 <= one.samples_per_s);
  CHECK(one.samples_per_s <= eight.spread->p90);
  CHECK(eight.spread->p10 < eight.spread->p90);  // the jitter draws differ from seed to seed
  const PlanPoint again = straggler_point(8, RiskQuantile::p10);
  CHECK(again.spread->p10 == eight.spread->p10);
  CHECK(again.spread->p90 == eight.spread->p90);
  CHECK(again.samples_per_s == eight.spread->p10);
}
