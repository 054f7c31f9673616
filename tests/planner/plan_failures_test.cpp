// The plan counts failures (plan_failures.hpp): each point's time to train solves D = kept / k(D) with its own
// failure rate, and a high rate makes a larger cluster that iterates faster train slower, which the knee and the
// recommendation name.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "syncsim/planner/plan_failures.hpp"
#include "syncsim/planner/plan_grid.hpp"
#include "syncsim/planner/plan_report.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;
using namespace syncsim::planner;

namespace {

const std::string kFailuresScenario = std::string(SYNCSIM_PLANNER_DATA "/failures-knee.yaml");

// tests/planner/data/failures-knee.yaml, by hand. Software failures at r = 0.075 per GPU-hour take no node down, so
// n GPUs are interrupted lambda = 0.075 n times an hour, each costing c = 1 min detection + 9 min restart + the
// restore (a few ms: resnet50's 358 MB at 50 GB/s per host) = 1/6 h, and half the 20-minute interval of lost
// progress, I/2 = 1/6 h. The checkpoint's stall s is the same few ms, so I / (I + s) = 1 within 1e-5, and
//
//   k(n) = (1 - lambda c) I / (I + s) - lambda I / 2 = 1 - 0.075 n / 3
//   k(16) = 1 - 0.4 = 0.6        k(32) = 1 - 0.8 = 0.2
//
// ResNet-50 is compute-bound on this fabric (examples/planner-compute-bound.yaml): 32 GPUs iterate about twice
// as fast as 16, but train 3 / 2 = 1.5 times slower: T(32) / T(16) = (samples/s(16) x 0.6) / (samples/s(32) x 0.2).
constexpr double kExpectedShare16 = 0.6;
constexpr double kExpectedShare32 = 0.2;
// The mean over 1,000 sampled runs of ~1,000 interruptions each: its standard error is below 0.001.
constexpr double kSampling = 0.01;

PlanGoal goal_of(double samples) {
  PlanGoal goal;
  goal.samples = samples;
  return goal;
}

struct Planned {
  std::vector<PlanPoint> points;
  std::vector<run::JobGoodput> jobs;
};

planner::PlanContext context_of(const PlanGoal& goal) {
  planner::PlanContext context;
  context.scenario = "failures-knee";
  context.goal = goal;
  return context;
}

Planned plan_counts(const std::vector<std::int64_t>& counts, const PlanGoal& goal) {
  const Scenario base = load_scenario(kFailuresScenario);
  PlanGrid grid{counts, {"A100-SXM4-80GB"}, {{"scenario", std::nullopt}}};
  Planned out;
  run::Workspace workspace;
  for (const SweepPoint& point : plan_points(base, grid)) {
    const Scenario scenario = load_scenario(kFailuresScenario, point.overrides);
    const TrainingReport report = run::run_scenario(scenario, workspace).report;
    out.jobs.push_back(point_failures(scenario, workspace, report, goal));
    PlanPoint p = plan_point(point, report);
    add_failures(p, out.jobs.back());
    out.points.push_back(p);
  }
  return out;
}

}  // namespace

TEST_CASE("each point's share of the wall time that trains is the closed form's at its own failure rate") {
  const Planned planned = plan_counts({16, 32}, goal_of(3e10));
  REQUIRE(planned.jobs.size() == 2);
  CHECK(planned.jobs[0].kept_share == Approx(kExpectedShare16).margin(kSampling));
  CHECK(planned.jobs[1].kept_share == Approx(kExpectedShare32).margin(kSampling));
  // No stragglers: ETTR is the share that trains.
  CHECK(*planned.points[0].ettr == Approx(planned.jobs[0].kept_share));
  CHECK(planned.points[1].badput_cause == "lost_progress");  // I / 2 = 10 min against a 9-minute restart
}

TEST_CASE("the wall time is a fixed point: the share of it that trains keeps exactly the work") {
  const Planned planned = plan_counts({16}, goal_of(3e10));
  const run::JobGoodput& job = planned.jobs[0];
  REQUIRE(std::isfinite(job.wall_seconds));
  CHECK(job.steps < 50);
  // D x k(D) = kept, k evaluated at D itself (the report's duration).
  CHECK(job.goodput.duration_seconds == job.wall_seconds);
  CHECK(job.wall_seconds * job.kept_share == Approx(job.kept_seconds).epsilon(1e-6));
  CHECK(job.kept_seconds == Approx(3e10 / planned.points[0].samples_per_s));
}

TEST_CASE("a failure rate that outweighs the speed-up makes the larger cluster train slower, and the plan says so") {
  const PlanGoal goal = goal_of(3e10);
  const Planned planned = plan_counts({16, 32}, goal);
  const PlanPoint& p16 = planned.points[0];
  const PlanPoint& p32 = planned.points[1];
  REQUIRE(p32.samples_per_s > 1.9 * p16.samples_per_s);  // the iteration: compute-bound, twice the GPUs

  const Plan plan = analyze_plan(planned.points, goal, "");
  const PlanPoint& best = plan.points.front();
  REQUIRE(plan.recommended);
  CHECK(best.gpus == 16);
  const PlanPoint& other = plan.points[1];
  REQUIRE(other.gpus == 32);
  // T(32) / T(16) = (samples/s(16) x 0.6) / (samples/s(32) x 0.2): 1.5 at exactly twice the speed.
  const double expected_ratio = (p16.samples_per_s * kExpectedShare16) / (p32.samples_per_s * kExpectedShare32);
  CHECK(*other.time_to_train_s / *best.time_to_train_s == Approx(expected_ratio).epsilon(0.05));
  CHECK(*other.time_to_train_s > *best.time_to_train_s);
  // The badput hours are the wall time less the training kept.
  CHECK(*best.badput_hours == Approx((*best.time_to_train_s - 3e10 / best.samples_per_s) / 3600));

  REQUIRE(plan.configurations.size() == 1);
  const PlanConfiguration& c = plan.configurations[0];
  CHECK(c.failures_cause);
  CHECK(*other.marginal_without_failures > 0.9);
  CHECK(other.marginal_efficiency < 0);
  const std::string text = plan_text(plan, context_of(goal));
  INFO(text);
  CHECK(text.find("knee A100-SXM4-80GB / scenario: 16 GPUs — past 16 GPUs, failures cost more than the added GPUs "
                  "give") != std::string::npos);
  CHECK(text.find("32 GPUs train slower than 16") != std::string::npos);
  CHECK(plan.recommendation.find("past 16 GPUs, failures cost more than the added GPUs give") != std::string::npos);
  CHECK(plan_csv(plan, goal).find(",ettr,badput_hours,checkpoint_interval_s,effective_samples_per_s\n") !=
        std::string::npos);
}

TEST_CASE("a plan counts failures only with a reliability section, and --no-failures leaves them out") {
  const Scenario with = load_scenario(kFailuresScenario);
  CHECK(counts_failures(with, false));
  CHECK_FALSE(counts_failures(with, true));
  const Scenario without = load_scenario(std::string(SYNCSIM_EXAMPLES_DIR "/planner-compute-bound.yaml"));
  CHECK_FALSE(counts_failures(without, false));
  // A plan without failures has neither the columns nor the words.
  PlanPoint p;
  p.gpu = "A100-SXM4-80GB";
  p.network = "scenario";
  p.gpus = 8;
  p.samples_per_s = 100;
  const PlanGoal goal = goal_of(1e6);
  const Plan plan = analyze_plan({p}, goal, "");
  CHECK(plan_csv(plan, goal).find("ettr") == std::string::npos);
  CHECK(plan_text(plan, context_of(goal)).find("ETTR") == std::string::npos);
  CHECK(*plan.points[0].time_to_train_s == 1e4);
}

TEST_CASE("the same scenario gives the same failures, point by point") {
  const Planned a = plan_counts({16}, goal_of(3e10));
  const Planned b = plan_counts({16}, goal_of(3e10));
  CHECK(a.jobs[0].wall_seconds == b.jobs[0].wall_seconds);
  CHECK(a.jobs[0].kept_share == b.jobs[0].kept_share);
  CHECK(a.jobs[0].goodput.badput == b.jobs[0].goodput.badput);
}

namespace {

PlanPoint hand_point(std::int64_t gpus, double samples_per_s, double kept_share, const std::string& cause) {
  PlanPoint p;
  p.gpu = "A100-SXM4-80GB";
  p.network = "scenario";
  p.gpus = gpus;
  p.samples_per_s = samples_per_s;
  p.kept_share = kept_share;
  p.ettr = kept_share;
  p.badput_cause = cause;
  p.badput_cause_share = 1 - kept_share;
  return p;
}

}  // namespace

TEST_CASE("a knee that checkpoint saves set names checkpointing, one that the iteration sets does not name failures") {
  const PlanGoal goal = goal_of(1e9);
  SECTION("checkpointing") {
    // 8 -> 16 GPUs: samples/s doubles (marginal 1 alone), but k falls 0.9 -> 0.4: effective 90 -> 80, marginal
    // (80 - 90) / (8 x 90 / 8) = -0.111.
    const Plan plan = analyze_plan(
        {hand_point(8, 100, 0.9, "checkpoint_save"), hand_point(16, 200, 0.4, "checkpoint_save")}, goal, "");
    REQUIRE(plan.configurations[0].failures_cause);
    CHECK(plan.points[1].marginal_efficiency == Approx(-1.0 / 9));
    CHECK(plan_text(plan, context_of(goal)).find("past 8 GPUs, checkpointing costs more than the added GPUs give") !=
          std::string::npos);
  }
  SECTION("the iteration") {
    // 8 -> 16 GPUs: samples/s 100 -> 120 (marginal 0.2 alone, below 0.8 with or without failures).
    const Plan plan =
        analyze_plan({hand_point(8, 100, 0.9, "restart"), hand_point(16, 120, 0.85, "restart")}, goal, "");
    CHECK_FALSE(plan.configurations[0].failures_cause);
    CHECK(*plan.points[1].marginal_without_failures == Approx(0.2));
    CHECK(plan_text(plan, context_of(goal)).find("failures cost") == std::string::npos);
  }
}

TEST_CASE("without a fixed interval each point checkpoints at the optimum for its own MTBF and save time") {
  // failures-knee.yaml without checkpoint.interval. Twice the GPUs fail twice as often (M halves) and write through
  // twice the hosts' storage ports (the stall s halves: 358 MB at 2 x 50 or 4 x 50 GB/s), so Young's sqrt(2 s M)
  // halves; Daly's correction is below 0.1% with s of milliseconds against M of minutes.
  const std::string yaml =
      "name: daly\nseed: 7\n"
      "cluster: {gpu: A100-SXM4-80GB, topology: {kind: dgx, nodes: 2, gpus: 8}}\n"
      "model: {name: resnet50, batch_per_gpu: 128, precision: fp16, optimizer: adam}\n"
      "training: {strategy: sync, communication: allreduce, iterations: 2}\n"
      "checkpoint: {restart_cost: 9min}\n"
      "reliability: {failures: {software: 0.075/h}, duration: 30d}\n";
  run::Workspace workspace;
  std::vector<double> intervals;
  for (const int nodes : {2, 4}) {
    const Scenario s = parse_scenario(yaml, "daly.yaml", {fmt::format("cluster.topology.nodes={}", nodes)});
    const TrainingReport report = run::run_scenario(s, workspace).report;
    const run::JobGoodput job = point_failures(s, workspace, report, goal_of(3e10));
    const GoodputReport& g = job.goodput;
    CHECK(g.mtbf_seconds == Approx(3600 / (0.075 * 8 * nodes)));
    CHECK(g.checkpoint_interval_seconds ==
          Approx(std::sqrt(2 * g.checkpoint_stall_seconds * g.mtbf_seconds)).epsilon(1e-3));
    intervals.push_back(g.checkpoint_interval_seconds);
  }
  CHECK(intervals[1] / intervals[0] == Approx(0.5).epsilon(1e-3));
}
