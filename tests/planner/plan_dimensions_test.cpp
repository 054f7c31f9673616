// The checkpoint interval and the hot spares as plan dimensions (plan_dimensions.hpp): each point simulated once
// and its job assessed per (interval, spares) pair; the best pair stands for the point.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "syncsim/core/input_error.hpp"
#include "syncsim/planner/plan_dimensions.hpp"
#include "syncsim/planner/plan_failures.hpp"
#include "syncsim/planner/plan_grid.hpp"
#include "syncsim/planner/plan_report.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;
using namespace syncsim::planner;

namespace {

const std::string kPairsScenario = std::string(SYNCSIM_PLANNER_DATA "/checkpoint-pairs.yaml");

// tests/planner/data/checkpoint-pairs.yaml on 16 GPUs (2 nodes), by hand. Interruptions: GPUs 0.005 and software
// 0.02 per GPU-hour, lambda = 0.025 x 16 = 0.4 an hour. Each costs c = 1 min detection + 4 min restart + the restore
// s (the 358 MB checkpoint read back at 1 MB/s), and a fifth of them (the GPUs') take a node down: with no spares
// the job waits the 1-hour repair. So, with I the interval and s the stall (the save, synchronous),
//
//   E[k](I) = (1 - lambda c') I / (I + s) - lambda I / 2,    c' = c + 0.2 x 1 h
//
// maximised where (I + s)^2 = 2 s (1 - lambda c') / lambda. Daly's interval, from the MTBF alone, lands near it.
struct Job16 {
  Scenario scenario;
  TrainingReport report;
};

Job16 job16() {
  const Scenario base = load_scenario(kPairsScenario);
  PlanGrid grid{{16}, {"A100-SXM4-80GB"}, {{"scenario", std::nullopt}}};
  const SweepPoint point = plan_points(base, grid).front();
  Scenario scenario = load_scenario(kPairsScenario, point.overrides);
  run::Workspace workspace;
  TrainingReport report = run::run_scenario(scenario, workspace).report;
  return {std::move(scenario), std::move(report)};
}

std::vector<run::JobGoodput> jobs_of(const Job16& job, const PlanDimensions& dims) {
  run::Workspace workspace;
  return point_failures(job.scenario, workspace, job.report, PlanGoal{}, dims.policies());
}

double badput(const run::JobGoodput& job, const std::string& cause) {
  for (const auto& [name, share] : job.goodput.badput) {
    if (name == cause) return share;
  }
  FAIL("no badput cause " << cause);
  return 0;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("Daly's interval has the best ETTR among the intervals of a point, as the closed form says") {
  const Job16 job = job16();
  const std::vector<run::JobGoodput> optimal = jobs_of(job, {.intervals = {{"optimal", std::nullopt}}, .spares = {0}});
  const GoodputReport& g = optimal.front().goodput;
  const double s = g.checkpoint_stall_seconds;
  const double daly = g.checkpoint_interval_optimal_seconds;
  REQUIRE(s == Approx(g.restore_seconds));
  REQUIRE(s > 300);  // the slow storage: a save of minutes
  CHECK(g.checkpoint_interval_seconds == daly);

  const double lambda = 0.4 / 3600;
  const double c = 60 + 240 + s + 0.2 * 3600;
  const auto expected_k = [&](double interval) {
    return (1 - lambda * c) * interval / (interval + s) - lambda * interval / 2;
  };
  const double best_interval = std::sqrt(2 * s * (1 - lambda * c) / lambda) - s;
  // The closed form's own gap between its maximum and Daly's interval: the tolerance of "best".
  const double tolerance = expected_k(best_interval) - expected_k(daly);
  CHECK(daly == Approx(best_interval).epsilon(0.2));
  CHECK(tolerance < 0.005);

  PlanDimensions dims{.intervals = {{"optimal", std::nullopt}}, .spares = {0}};
  for (const double factor : {0.25, 0.5, 0.8, 1.25, 2.0, 4.0}) {
    dims.intervals.push_back({fmt::format("{:g}x", factor), factor * daly});
  }
  const std::vector<run::JobGoodput> jobs = jobs_of(job, dims);
  REQUIRE(jobs.size() == dims.intervals.size());
  const double ettr_daly = jobs.front().goodput.ettr;
  CHECK(ettr_daly == Approx(optimal.front().goodput.ettr));  // the pairs are assessed alike, alone or together
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const double interval = jobs[i].goodput.checkpoint_interval_seconds;
    INFO("interval " << interval << " s, ETTR " << jobs[i].goodput.ettr << ", Daly's " << ettr_daly);
    // Each interval's mean share that trains is the closed form's (400 sampled runs of ~290 interruptions).
    CHECK(jobs[i].kept_share == Approx(expected_k(interval)).margin(0.005));
    CHECK(ettr_daly >= jobs[i].goodput.ettr - tolerance);
  }
  // Far from the optimum the closed form is clearly lower, and so is the sampled ETTR.
  CHECK(ettr_daly > jobs[1].goodput.ettr + 0.01);  // a quarter of Daly's interval
  CHECK(ettr_daly > jobs[6].goodput.ettr + 0.01);  // four times it
}

TEST_CASE("more hot spares never increase the repair waits, and their idle share is their GPUs over all paid") {
  const Job16 job = job16();
  const PlanDimensions dims{.intervals = {}, .spares = {0, 1, 2, 4, 16}};
  const std::vector<run::JobGoodput> jobs = jobs_of(job, dims);
  REQUIRE(jobs.size() == 5);
  CHECK(badput(jobs[0], "repair_wait") > 0.01);  // no spare: every node failure waits the 1-hour repair
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const double spare_gpus = 8.0 * static_cast<double>(dims.spares[i]);  // 8 GPUs a node
    CHECK(jobs[i].goodput.spares == dims.spares[i]);
    CHECK(jobs[i].spare_gpus == spare_gpus);
    // Of the GPU time paid for, D x (16 + spare GPUs), the spares' is idle: spare GPUs / (16 + spare GPUs).
    CHECK(badput(jobs[i], "spares_idle") == Approx(spare_gpus / (16 + spare_gpus)));
    if (i == 0) continue;
    // In shares of the GPU time paid for and in job hours (share x paid / job GPUs) alike.
    CHECK(badput(jobs[i], "repair_wait") <= badput(jobs[i - 1], "repair_wait"));
    const double hours = badput(jobs[i], "repair_wait") * (16 + spare_gpus) / 16;
    const double hours_before =
        badput(jobs[i - 1], "repair_wait") * (16 + 8.0 * static_cast<double>(dims.spares[i - 1])) / 16;
    CHECK(hours <= hours_before);
  }
  CHECK(badput(jobs[4], "repair_wait") == 0);  // 16 spare nodes: a swap every time (a 1-hour repair, ~3 a day)
}

TEST_CASE("without the flags a point has the scenario's one pair, and its row is the plan's before them") {
  const Job16 job = job16();
  const PlanDimensions none;
  REQUIRE_FALSE(none.given());
  REQUIRE(none.policies().size() == 1);
  run::Workspace workspace;
  const run::JobGoodput alone = point_failures(job.scenario, workspace, job.report, PlanGoal{});
  const std::vector<run::JobGoodput> jobs = jobs_of(job, none);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].goodput.ettr == alone.goodput.ettr);
  CHECK(jobs[0].goodput.badput == alone.goodput.badput);
  PlanPoint p;
  p.gpus = 16;
  const std::vector<PlanPoint> rows = pair_rows(p, jobs, none);
  REQUIRE(rows.size() == 1);
  CHECK_FALSE(rows[0].spares);
  CHECK(rows[0].checkpoint_choice.empty());
  const PlanGoal goal;
  const std::string csv = plan_csv(analyze_plan(rows, goal, ""), goal);
  CHECK(csv.find("spares") == std::string::npos);
  CHECK(csv.find(",checkpoint_interval_s,effective_samples_per_s\n") != std::string::npos);
}

TEST_CASE("a point's best pair stands for it, the others are in plan.csv, and the plan names the pair") {
  const Scenario base = load_scenario(kPairsScenario);
  const PlanDimensions dims{.intervals = {{"optimal", std::nullopt}, {"10min", 600}, {"8h", 8 * 3600}},
                            .spares = {0, 2}};
  PlanGoal goal;
  goal.samples = 1e10;
  PlanGrid grid{{16, 32}, {"A100-SXM4-80GB"}, {{"scenario", std::nullopt}}};
  const auto plan_once = [&] {
    std::vector<PlanPoint> rows;
    run::Workspace workspace;
    for (const SweepPoint& point : plan_points(base, grid)) {
      const Scenario scenario = load_scenario(kPairsScenario, point.overrides);
      const TrainingReport report = run::run_scenario(scenario, workspace).report;
      const std::vector<run::JobGoodput> jobs = point_failures(scenario, workspace, report, goal, dims.policies());
      check_point_jobs(dims, jobs, "test point");
      for (PlanPoint& r : pair_rows(plan_point(point, report), jobs, dims)) rows.push_back(std::move(r));
    }
    return analyze_plan(rows, goal, "");
  };
  const Plan plan = plan_once();
  REQUIRE(plan.points.size() == 12);  // 2 counts x 3 intervals x 2 spare counts
  // The first two rows are the counts' best pairs, then the alternatives.
  CHECK_FALSE(plan.points[0].alternative);
  CHECK_FALSE(plan.points[1].alternative);
  for (std::size_t i = 2; i < plan.points.size(); ++i) CHECK(plan.points[i].alternative);
  for (std::size_t best = 0; best < 2; ++best) {
    // The fastest of its count (no deadline): Daly's interval, and spares that spare the repair waits (free
    // without prices).
    const PlanPoint& b = plan.points[best];
    for (const PlanPoint& p : plan.points) {
      if (p.gpus == b.gpus) CHECK(effective_samples_per_s(p) <= effective_samples_per_s(b));
    }
    CHECK(b.checkpoint_choice == "optimal");
    CHECK(*b.spares == 2);
  }
  REQUIRE(plan.configurations.size() == 1);
  CHECK(plan.configurations[0].points.size() == 2);  // the knee runs over the best pairs only
  CHECK(plan.recommendation.find("(optimal) with 2 hot spare nodes") != std::string::npos);
  const std::string csv = plan_csv(plan, goal);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 13);
  CHECK(csv.find(",checkpoint_interval_s,effective_samples_per_s,spares,pair\n") != std::string::npos);
  CHECK(csv.find(",0,10min / 0 spares\n") != std::string::npos);  // a pair worse at every count stays
  planner::PlanContext context;
  context.scenario = "checkpoint-pairs";
  context.goal = goal;
  const std::string text = plan_text(plan, context);
  INFO(text);
  CHECK(text.find("2 points x 6 (interval, spares) pairs") != std::string::npos);
  CHECK(text.find("the other 10 pairs (interval, spares) of these points: plan.csv, rows 3 to 12") !=
        std::string::npos);
  // Determinism: the same plan, byte for byte.
  CHECK(plan_csv(plan_once(), goal) == csv);
}

TEST_CASE("with a deadline, a point's pair is the cheapest that meets it, as the ranking judges points") {
  const auto row = [](double samples_per_s, double price, std::int64_t spares) {
    PlanPoint p;
    p.gpu = "A100-SXM4-80GB";
    p.network = "scenario";
    p.gpus = 8;
    p.samples_per_s = samples_per_s;
    p.kept_share = 1;
    p.ettr = 1;
    p.price_per_hour = price;
    p.spares = spares;
    p.checkpoint_choice = "optimal";
    return p;
  };
  // 1e6 samples: the fast pair takes 1000 s at 36/h (10 in all), the slow one 2000 s at 9/h (5 in all).
  PlanGoal goal;
  goal.samples = 1e6;
  SECTION("both meet the deadline: the cheaper to train") {
    goal.deadline_s = 3000;
    goal.target_samples_per_s = *goal.samples / *goal.deadline_s;
    const Plan plan = analyze_plan({row(1000, 36, 4), row(500, 9, 0)}, goal, "USD");
    CHECK(*plan.points.front().spares == 0);
    CHECK(plan.points.back().alternative);
  }
  SECTION("only the fast one meets it") {
    goal.deadline_s = 1500;
    goal.target_samples_per_s = *goal.samples / *goal.deadline_s;
    const Plan plan = analyze_plan({row(1000, 36, 4), row(500, 9, 0)}, goal, "USD");
    CHECK(*plan.points.front().spares == 4);
    CHECK(plan.recommendation.find("with 4 hot spare nodes") != std::string::npos);
  }
}

TEST_CASE("the flags refuse empty lists, duplicates, zero, absurd values and scenarios without failures") {
  CHECK(error_of([] { (void)parse_checkpoint_intervals(""); }).find("--checkpoint-intervals: empty") == 0);
  CHECK(error_of([] { (void)parse_checkpoint_intervals("10min,"); }).find("empty item") != std::string::npos);
  CHECK(error_of([] { (void)parse_checkpoint_intervals("10min,600s"); }).find("10.0 min given twice ('600s')") !=
        std::string::npos);
  CHECK(error_of([] { (void)parse_checkpoint_intervals("optimal,optimal"); }).find("optimal given twice") !=
        std::string::npos);
  CHECK(error_of([] { (void)parse_checkpoint_intervals("0s"); }).find("above zero, got '0s'") != std::string::npos);
  CHECK(error_of([] { (void)parse_checkpoint_intervals("-5min"); }).find("--checkpoint-intervals") == 0);
  CHECK(error_of([] { (void)parse_checkpoint_intervals("600"); }).find("--checkpoint-intervals") == 0);
  CHECK(error_of([] { (void)parse_checkpoint_intervals("best"); }).find("--checkpoint-intervals") == 0);
  CHECK(error_of([] { (void)parse_checkpoint_intervals("400d"); }).find("longer than a year") != std::string::npos);
  CHECK(parse_checkpoint_intervals("optimal,10min,2h").size() == 3);

  CHECK(error_of([] { (void)parse_spares(""); }).find("--spares: empty") == 0);
  CHECK(error_of([] { (void)parse_spares("0,16,16"); }).find("16 given twice") != std::string::npos);
  CHECK(error_of([] { (void)parse_spares("-1"); }).find("out of range") != std::string::npos);
  CHECK(error_of([] { (void)parse_spares("1000000000000"); }).find("1000000000000 hot spare nodes is out of range") !=
        std::string::npos);
  CHECK(error_of([] { (void)parse_spares("1.5"); }).find("--spares") == 0);
  CHECK(parse_spares("0,16,64") == std::vector<std::int64_t>{0, 16, 64});

  const PlanDimensions spares{.intervals = {}, .spares = {0, 16}};
  const Scenario without = load_scenario(std::string(SYNCSIM_EXAMPLES_DIR "/planner-compute-bound.yaml"));
  CHECK(error_of([&] {
          check_dimensions(spares, without, false, false);
        }).find("--spares: '0': the scenario has no reliability: section") == 0);
  const Scenario with = load_scenario(kPairsScenario);
  CHECK(error_of([&] { check_dimensions(spares, with, true, false); }).find("--spares: '0' with --no-failures") == 0);
  const PlanDimensions long_interval{.intervals = {{"40d", 40 * 86400.0}}, .spares = {}};
  CHECK(error_of([&] {
          check_dimensions(long_interval, with, false, false);
        }).find("'40d' is longer than the scenario's 30.0 d job") != std::string::npos);
  CHECK(error_of([&] { check_dimensions(long_interval, with, false, true); }) == "(no error)");  // per point then
}

TEST_CASE("an interval shorter than the point's checkpoint save, or longer than its job, is refused at the point") {
  const Job16 job = job16();
  const PlanDimensions short_interval{.intervals = {{"1min", 60}}, .spares = {}};
  CHECK(error_of([&] {
          check_point_jobs(short_interval, jobs_of(job, short_interval), "16 GPUs");
        }).find("--checkpoint-intervals: '1min' is shorter than one checkpoint save at 16 GPUs (") == 0);
  run::Workspace workspace;
  PlanGoal goal;
  goal.samples = 1e8;  // a job of hours on 16 GPUs
  const PlanDimensions long_interval{.intervals = {{"20d", 20 * 86400.0}}, .spares = {0, 4}};
  const auto jobs = point_failures(job.scenario, workspace, job.report, goal, long_interval.policies());
  REQUIRE(jobs[0].wall_seconds < 20 * 86400.0);
  CHECK(error_of([&] {
          check_point_jobs(long_interval, jobs, "16 GPUs");
        }).find("'20d' is longer than the whole job at 16 GPUs") != std::string::npos);
}
