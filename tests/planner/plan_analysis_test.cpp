// Plan analysis on hand-made points: marginal efficiency, the knee, the Pareto front, the ranking and the
// recommendation, each with the answer worked out first.
#include <catch2/catch.hpp>

#include "syncsim/planner/plan_analysis.hpp"

using namespace syncsim::planner;

namespace {

// The report's one GPU does 100 samples/s (analyze_plan rebases on the smallest count that fits); `per_gpu_price`
// per GPU-hour.
PlanPoint point(std::string network, std::int64_t gpus, double samples_per_s, std::optional<double> per_gpu_price) {
  PlanPoint p;
  p.gpu = "A100-SXM4-80GB";
  p.network = std::move(network);
  p.gpus = gpus;
  p.samples_per_s = samples_per_s;
  p.single_gpu_samples_per_s = 100;
  p.scaling_efficiency = samples_per_s / (100.0 * static_cast<double>(gpus));
  p.bottleneck = "compute";
  if (per_gpu_price) p.price_per_hour = *per_gpu_price * static_cast<double>(gpus);
  return p;
}

const PlanPoint& find(const Plan& plan, const std::string& network, std::int64_t gpus) {
  for (const PlanPoint& p : plan.points) {
    if (p.network == network && p.gpus == gpus) return p;
  }
  throw std::logic_error("no such point");
}

}  // namespace

TEST_CASE("marginal efficiency and the knee: 8 -> 16 scales, 16 -> 32 gets slower") {
  // The baseline is the smallest count's 790/s over 8 GPUs = 98.75/s per GPU: E(8) = M(8) = 1; 16: 1580/s,
  // M = (1580 - 790) / (8 x 98.75) = 1; 32: 1090/s, M = (1090 - 1580) / (16 x 98.75) < 0.
  const Plan plan = analyze_plan(
      {point("pods", 8, 790, 1.0), point("pods", 16, 1580, 1.0), point("pods", 32, 1090, 1.0)}, PlanGoal{}, "USD");
  CHECK(find(plan, "pods", 8).scaling_efficiency == Approx(1));
  CHECK(find(plan, "pods", 8).single_gpu_samples_per_s == Approx(98.75));
  CHECK(find(plan, "pods", 8).marginal_efficiency == Approx(1));
  CHECK(find(plan, "pods", 16).marginal_efficiency == Approx(1));
  CHECK(find(plan, "pods", 32).marginal_efficiency == Approx(-490.0 / 1580));
  REQUIRE(plan.configurations.size() == 1);
  REQUIRE(plan.configurations[0].knee);
  CHECK(plan.points[*plan.configurations[0].knee].gpus == 16);
  CHECK(plan.points[*plan.configurations[0].first_below].gpus == 32);
  REQUIRE(plan.recommended == 0u);
  CHECK(plan.points[0].gpus == 16);
  CHECK_THAT(plan.recommendation, Catch::StartsWith("Recommendation: 16 x A100-SXM4-80GB on pods"));
}

TEST_CASE("efficiency is against the smallest count that fits, not one GPU") {
  // A model no single GPU holds: the report's one-GPU throughput (100/s) says 16 GPUs at 400/s scale at 0.25. Against
  // the smallest count, 16 is the baseline (E 1) and 32 at 500/s adds M = 100 / (16 x 25) = 0.25: the knee is 16.
  const Plan plan =
      analyze_plan({point("eth", 16, 400, std::nullopt), point("eth", 32, 500, std::nullopt)}, PlanGoal{}, "");
  CHECK(find(plan, "eth", 16).scaling_efficiency == Approx(1));
  CHECK(find(plan, "eth", 32).scaling_efficiency == Approx(500.0 / (32 * 25)));
  CHECK(find(plan, "eth", 32).marginal_efficiency == Approx(0.25));
  REQUIRE(plan.configurations[0].knee);
  CHECK(plan.points[*plan.configurations[0].knee].gpus == 16);
  REQUIRE(plan.recommended == 0u);
  CHECK(plan.points[0].gpus == 16);
}

TEST_CASE("with a target, the cheapest point that reaches it is recommended") {
  // Target 1500/s: ib at 16 GPUs (1580/s, 16 x 2.0 = 32/h) beats eth at 32 GPUs (2900/s, E 0.906, 32 x 1.1 = 35.2/h);
  // eth at 16 (1200/s) misses the target.
  PlanGoal goal;
  goal.target_samples_per_s = 1500;
  goal.samples = 1e9;
  const Plan plan =
      analyze_plan({point("eth", 16, 1200, 1.1), point("eth", 32, 2900, 1.1), point("ib", 16, 1580, 2.0)}, goal, "USD");
  REQUIRE(plan.recommended == 0u);
  CHECK(plan.points[0].network == "ib");
  CHECK(plan.points[0].gpus == 16);
  CHECK_FALSE(find(plan, "eth", 16).meets_target);
  CHECK(*find(plan, "ib", 16).time_to_train_s == Approx(1e9 / 1580));
  // $ per million samples = 32 / (1580 x 3600) x 1e6
  CHECK(*find(plan, "ib", 16).price_per_million_samples == Approx(32.0 / (1580 * 3600) * 1e6));
}

TEST_CASE("the Pareto front keeps the points no other point beats on both time and cost") {
  // eth 32: fastest; ib 16: cheaper per sample than eth 16 and faster -> eth 16 is dominated.
  const Plan plan = analyze_plan({point("eth", 16, 1200, 2.2), point("eth", 32, 2900, 1.1), point("ib", 16, 1580, 1.0)},
                                 PlanGoal{}, "USD");
  CHECK(find(plan, "eth", 32).pareto);
  CHECK(find(plan, "ib", 16).pareto);
  CHECK_FALSE(find(plan, "eth", 16).pareto);
}

TEST_CASE("time to accuracy: the first to reach the target is recommended, whatever its throughput") {
  // 32 GPUs run fastest but reach the loss later than 16; 64 never do.
  PlanPoint p8 = point("net", 8, 800, std::nullopt), p16 = point("net", 16, 1600, std::nullopt);
  PlanPoint p32 = point("net", 32, 3200, std::nullopt), p64 = point("net", 64, 3000, std::nullopt);
  p8.time_to_target_s = 10;
  p16.time_to_target_s = 4;
  p32.time_to_target_s = 6;
  p8.best_loss = p16.best_loss = p32.best_loss = 0.5;
  p64.best_loss = 0.7;
  PlanGoal goal;
  goal.target_loss = 0.6;
  const Plan plan = analyze_plan({p8, p16, p32, p64}, goal, "");
  REQUIRE(plan.recommended);
  CHECK(plan.points[0].gpus == 16);
  CHECK(plan.points[1].gpus == 32);
  CHECK(plan.points[2].gpus == 8);
  CHECK(plan.points[3].gpus == 64);
  CHECK_FALSE(plan.points[3].meets_target);
  CHECK_THAT(plan.recommendation, Catch::Contains("16 x A100-SXM4-80GB") && Catch::Contains("loss 0.6 after 4.000 s"));
}

TEST_CASE("time to accuracy with prices: the lowest cost to reach the target, none reached says so") {
  // 16 GPUs at 1/GPU-hour for 3600 s cost 16; 8 GPUs for 5400 s cost 12: cheaper though slower.
  PlanPoint p8 = point("net", 8, 800, 1.0), p16 = point("net", 16, 1600, 1.0);
  p8.time_to_target_s = 5400;
  p16.time_to_target_s = 3600;
  PlanGoal goal;
  goal.target_loss = 0.6;
  const Plan plan = analyze_plan({p8, p16}, goal, "USD");
  CHECK(plan.points[0].gpus == 8);
  CHECK(*plan.points[0].cost_to_target == Approx(12));
  CHECK(*plan.points[1].cost_to_target == Approx(16));

  p8.time_to_target_s.reset();
  p16.time_to_target_s.reset();
  p8.best_loss = 0.65;
  p16.best_loss = 0.62;
  const Plan none = analyze_plan({p8, p16}, goal, "USD");
  CHECK_FALSE(none.recommended);
  CHECK_THAT(none.recommendation, Catch::Contains("none of these reaches loss 0.6") && Catch::Contains("16 x"));
}

TEST_CASE("a point whose GPUs cannot hold the model is ranked last, never recommended, and out of the knee") {
  // 8 GPUs do not fit (the model's state per GPU is 120 GiB of 80); 16 and 32 do, with sharding over more ranks.
  // The knee runs over the sizes that fit, against the smallest that fits (16: 98.75/s per GPU): M(16) = 1 (no
  // previous size), M(32) = 1490 / (16 x 98.75).
  PlanPoint tight = point("ib", 8, 790, 1.0);
  tight.fits = false;
  tight.memory_bytes = 120.0 * (1LL << 30);
  tight.memory_capacity_bytes = 80.0 * (1LL << 30);
  const Plan plan = analyze_plan({tight, point("ib", 16, 1580, 1.0), point("ib", 32, 3070, 1.0)}, PlanGoal{}, "USD");
  CHECK(plan.points.back().gpus == 8);
  REQUIRE(plan.recommended);
  CHECK(plan.points[*plan.recommended].gpus == 32);
  CHECK(find(plan, "ib", 16).marginal_efficiency == Approx(1));
  CHECK(find(plan, "ib", 32).marginal_efficiency == Approx(1490.0 / 1580));

  // Nothing fits: no recommendation, and the sentence says so, naming the closest.
  PlanPoint worse = tight;
  worse.gpus = 16;
  worse.memory_bytes = 130.0 * (1LL << 30);
  const Plan none = analyze_plan({tight, worse}, PlanGoal{}, "USD");
  CHECK_FALSE(none.recommended);
  CHECK_THAT(none.recommendation, Catch::Contains("no configuration fits in GPU memory; the closest is 8 x"));
}

TEST_CASE("with a deadline, the lowest total cost to train wins, not the lowest price per hour") {
  // 1e7 samples within 3 h (926/s): 12 GPUs at 960/s (E 0.8) for 10,417 s = 2.894 h x 12/h = 34.72; 16 GPUs at
  // 1500/s (E 0.9375) for 6,667 s = 1.852 h x 16/h = 29.63: twice the GPUs rented for less time cost less.
  PlanGoal goal;
  goal.samples = 1e7;
  goal.deadline_s = 3 * 3600;
  goal.target_samples_per_s = 1e7 / (3 * 3600.0);
  const Plan priced = analyze_plan({point("ib", 12, 960, 1.0), point("ib", 16, 1500, 1.0)}, goal, "USD");
  REQUIRE(priced.recommended == 0u);
  CHECK(priced.points[0].gpus == 16);
  CHECK(*find(priced, "ib", 16).cost_to_train == Approx(16 * 1e7 / 1500 / 3600));
  CHECK(*find(priced, "ib", 12).cost_to_train == Approx(12 * 1e7 / 960 / 3600));
  CHECK(*find(priced, "ib", 12).gpu_hours == Approx(12 * 1e7 / 960 / 3600));
  CHECK_THAT(priced.recommendation, Catch::Contains("lowest total cost") && Catch::Contains("GPU-hours"));
  // Without prices the same by GPU-hours.
  const Plan unpriced =
      analyze_plan({point("ib", 12, 960, std::nullopt), point("ib", 16, 1500, std::nullopt)}, goal, "");
  CHECK(unpriced.points[0].gpus == 16);
  CHECK_FALSE(find(unpriced, "ib", 16).cost_to_train);
  CHECK_THAT(unpriced.recommendation, Catch::Contains("fewest GPU-hours"));
  // A sustained rate (no sample count) is paid by the hour: the 12 GPUs.
  goal.samples.reset();
  goal.deadline_s.reset();
  const Plan rate = analyze_plan({point("ib", 12, 960, 1.0), point("ib", 16, 1500, 1.0)}, goal, "USD");
  CHECK(rate.points[0].gpus == 12);
}

TEST_CASE("a deadline is met by the cheapest point that meets it, whatever its efficiency") {
  // A 70B model on a fixed layout: 1,024 GPUs at 100/s are the baseline; 2,048 at 150/s scale at E = 0.75, below the
  // 0.8 threshold, and 4,096 at 200/s at 0.5. The deadline needs 140/s: 2,048 meet it at the lowest total cost
  // (1e6 / 150 s x 2,048 GPUs), and they are recommended though their efficiency is below the threshold.
  PlanGoal goal;
  goal.samples = 1e6;
  goal.deadline_s = 1e6 / 140;
  goal.target_samples_per_s = 140;
  const Plan plan = analyze_plan(
      {point("ib", 1024, 100, 2.0), point("ib", 2048, 150, 2.0), point("ib", 4096, 200, 2.0)}, goal, "USD");
  CHECK(find(plan, "ib", 2048).scaling_efficiency == Approx(0.75));
  REQUIRE(plan.recommended == 0u);
  CHECK(plan.points[0].gpus == 2048);
  CHECK(plan.points[1].gpus == 4096);  // meets it too, at a higher cost
  CHECK_FALSE(find(plan, "ib", 1024).meets_target);
  CHECK_THAT(plan.recommendation, Catch::StartsWith("Recommendation: 2048 x A100-SXM4-80GB on ib") &&
                                      Catch::Contains("within the deadline"));
  // A throughput target likewise: the cheapest by the hour that reaches 140/s.
  goal.samples.reset();
  goal.deadline_s.reset();
  const Plan rate = analyze_plan(
      {point("ib", 1024, 100, 2.0), point("ib", 2048, 150, 2.0), point("ib", 4096, 200, 2.0)}, goal, "USD");
  REQUIRE(rate.recommended == 0u);
  CHECK(rate.points[0].gpus == 2048);
}
