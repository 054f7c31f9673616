// The layout search (syncsim plan --layouts auto): candidates that fit and train the scenario's global batch, the
// fastest standing for its count, and efficiency per GPU against the smallest count.
#include <catch2/catch.hpp>

#include <regex>
#include <string>

#include "syncsim/planner/layout_search.hpp"
#include "syncsim/planner/plan_grid.hpp"
#include "syncsim/planner/sweep_runner.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;
using namespace syncsim::planner;

namespace {

const std::string kScenario = std::string(SYNCSIM_PLANNER_DATA) + "/llama3-8b-layouts.yaml";

std::vector<SweepPoint> points_of(const std::string& gpus) {
  const Scenario base = load_scenario(kScenario);
  PlanGrid grid{parse_gpu_counts(gpus), {"H100-SXM-80GB"}, {{"scenario", std::nullopt}}};
  return plan_points(base, grid);
}

}  // namespace

TEST_CASE("every layout candidate fits and trains the scenario's global batch") {
  const std::vector<SweepPoint> points = points_of("16");
  const std::vector<LayoutCandidate> candidates = layout_candidates(kScenario, points);
  REQUIRE(candidates.size() > 4);
  bool has_scenario_layout = false;
  for (const LayoutCandidate& c : candidates) {
    const Scenario s = load_scenario(kScenario, c.run.overrides);
    CHECK(run::scenario_memory(s).fits);
    // The scenario's own layout, TP 8 on 16 GPUs, trains 2 x 4 micro-batches per iteration: every candidate too.
    const std::int64_t data = 16 / (s.parallelism.tensor.value * s.parallelism.pipeline.value);
    CHECK(data * s.model.micro_batches == 8);
    has_scenario_layout = has_scenario_layout || c.label == "TP8 PP1 DP2 none mb4";
  }
  CHECK(has_scenario_layout);
}

TEST_CASE("the fastest layout stands for its count") {
  const std::vector<SweepPoint> points = points_of("16");
  const std::vector<LayoutCandidate> candidates = layout_candidates(kScenario, points);
  std::vector<SweepPoint> runs;
  for (const LayoutCandidate& c : candidates) runs.push_back(c.run);
  std::vector<std::size_t> all;
  for (const SweepPoint& r : runs) all.push_back(r.index);
  std::vector<PlanPoint> results(runs.size());
  run_points(kScenario, runs, all, 2,
             [&](std::size_t i, const TrainingReport& r) { results[i] = plan_point(runs[i], r); });
  double fastest = 0;
  for (const PlanPoint& p : results) fastest = std::max(fastest, p.fits ? p.samples_per_s : 0);
  const std::vector<PlanPoint> best = best_layouts(candidates, results, points.size());
  REQUIRE(best.size() == 1);
  CHECK(best[0].samples_per_s == fastest);
  CHECK(std::regex_match(best[0].layout, std::regex("TP[0-9]+ PP[0-9]+ DP[0-9]+ [a-z]+ mb[0-9]+( \\+ckpt)?")));
}

TEST_CASE("with layouts, efficiency is per GPU against the smallest count") {
  const auto point = [](std::int64_t gpus, double samples_per_s) {
    PlanPoint p;
    p.gpu = "H100";
    p.network = "ib";
    p.gpus = gpus;
    p.samples_per_s = samples_per_s;
    return p;
  };
  std::vector<PlanPoint> points;
  points.push_back(point(256, 96));
  points.push_back(point(64, 32));
  rebase_on_smallest(points);
  CHECK(points[1].scaling_efficiency == Approx(1));
  CHECK(points[0].single_gpu_samples_per_s == Approx(0.5));
  CHECK(points[0].scaling_efficiency == Approx(96.0 / (256 * 0.5)));
}
