// The plan's charts tell the truth: throughput beside its ideal on linear axes, points labelled with their GPU
// counts, and a run that never reached its target marked as missing rather than left out.
#include <catch2/catch.hpp>

#include <string>

#include "syncsim/chart/chart.hpp"
#include "syncsim/planner/layout_search.hpp"
#include "syncsim/planner/plan_report.hpp"

using namespace syncsim;
using namespace syncsim::planner;

namespace {

PlanPoint point(std::int64_t gpus, double samples_per_s, double price) {
  PlanPoint p;
  p.gpu = "A100-SXM4-80GB";
  p.network = "ib";
  p.gpus = gpus;
  p.samples_per_s = samples_per_s;
  p.single_gpu_samples_per_s = 100;
  p.scaling_efficiency = samples_per_s / (100.0 * static_cast<double>(gpus));
  p.price_per_hour = price * static_cast<double>(gpus);
  return p;
}

// 8, 16 and 32 GPUs: scaling, then slower. Built one by one: GCC 12 warns of an uninitialized string when a list
// of three PlanPoints is copied from an initializer list (-Wmaybe-uninitialized, a false positive).
std::vector<PlanPoint> three_points() {
  std::vector<PlanPoint> out;
  out.push_back(point(8, 790, 1));
  out.push_back(point(16, 1500, 1));
  out.push_back(point(32, 1100, 1));
  return out;
}

const chart::Chart& named(const std::vector<NamedChart>& charts, const std::string& stem) {
  for (const NamedChart& c : charts) {
    if (c.stem == stem) return c.chart;
  }
  FAIL("no chart " << stem);
  return charts.front().chart;
}

}  // namespace

TEST_CASE("throughput is drawn on linear axes beside its ideal, its points labelled") {
  PlanGoal goal;
  const Plan plan = analyze_plan(three_points(), goal, "USD");
  const auto charts = plan_charts(plan, {"s", "USD", "p.yaml", goal});
  const chart::Chart& t = named(charts, "throughput");
  CHECK_FALSE(t.log_x);
  REQUIRE(t.series.size() == 2);
  const chart::ChartSeries& ideal = t.series[1];
  CHECK(ideal.dashed);
  REQUIRE(ideal.points.size() == 3);
  // The ideal is GPUs x the baseline the efficiencies use: the smallest count's throughput per GPU (790 / 8).
  for (const auto& [gpus, samples] : ideal.points) CHECK(samples == Approx(790.0 / 8 * gpus));
  CHECK(ideal.color == t.series[0].color);
  CHECK(t.series[0].labels == std::vector<std::string>{"8", "16", "32"});
  const std::string svg = chart::render_svg(t);
  CHECK_THAT(svg, Catch::Contains(">ideal: linear from the</text>") && Catch::Contains(">smallest count</text>"));
  const chart::Chart& cost = named(charts, "cost");
  CHECK(cost.series[0].labels.size() == 3);
  CHECK_THAT(chart::render_svg(cost), Catch::Contains("16 GPUs"));
}

TEST_CASE("a point that never reached the target loss is marked on the time-to-target chart") {
  PlanGoal goal;
  goal.target_loss = 0.5;
  PlanPoint reached = point(8, 790, 1);
  reached.time_to_target_s = 120;
  PlanPoint never = point(16, 1500, 1);
  never.best_loss = 0.7;
  const Plan plan = analyze_plan({reached, never}, goal, "USD");
  const auto charts = plan_charts(plan, {"s", "USD", "p.yaml", goal});
  const chart::Chart& reach = named(charts, "time_to_target");
  REQUIRE(reach.series.size() == 1);
  CHECK(reach.series[0].points.size() == 1);
  REQUIRE(reach.missing.size() == 1);
  CHECK(reach.missing[0].x == 16);
  CHECK_THAT(chart::render_svg(reach), Catch::Contains("16: not reached") && Catch::Contains("did not reach it"));
}

TEST_CASE("the ideal line is what the efficiency measures against: linear from the smallest count with layouts") {
  // Efficiency per GPU against the smallest count that fits (analyze_plan). At 8 GPUs 790 samples/s is
  // 98.75 a GPU, so the ideal at n GPUs is 98.75 n, and each point's throughput over it is its efficiency.
  std::vector<PlanPoint> points = three_points();
  PlanGoal goal;
  const Plan plan = analyze_plan(points, goal, "USD");
  planner::PlanContext context{"s", "USD", "p.yaml", goal};
  context.layouts = true;
  const auto charts = plan_charts(plan, context);
  const chart::Chart& t = named(charts, "throughput");
  REQUIRE(t.series.size() == 2);
  const chart::ChartSeries& ideal = t.series[1];
  REQUIRE(ideal.points.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto [gpus, samples] = ideal.points[i];
    CHECK(samples == Approx(98.75 * gpus));
    CHECK(t.series[0].points[i].second / samples ==
          Approx(plan.points[plan.configurations[0].points[i]].scaling_efficiency));
  }
  CHECK(t.reference_label == "ideal: linear from the smallest count");
}

TEST_CASE("the cost chart draws the deadline of --time-to-train on its time axis") {
  PlanGoal goal;
  goal.samples = 3.6e6;
  goal.deadline_s = 3600;
  goal.target_samples_per_s = *goal.samples / *goal.deadline_s;
  const Plan plan = analyze_plan(three_points(), goal, "USD");
  const auto charts = plan_charts(plan, {"s", "USD", "p.yaml", goal});
  const chart::Chart& cost = named(charts, "cost");
  REQUIRE(cost.x_rule);
  CHECK(*cost.x_rule == Approx(1.0));  // hours, the axis's unit
  CHECK_THAT(chart::render_svg(cost), Catch::Contains("deadline 1.0 h"));
  goal.deadline_s.reset();
  CHECK_FALSE(named(plan_charts(plan, {"s", "USD", "p.yaml", goal}), "cost").x_rule);
}
