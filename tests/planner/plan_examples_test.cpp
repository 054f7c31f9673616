// The planner's examples (examples/planner-*.yaml and the 16-vs-32 story) through the same path `syncsim plan`
// takes: grid -> sweep points -> simulations on threads -> analysis; each conclusion asserted.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <mutex>

#include "syncsim/planner/plan_analysis.hpp"
#include "syncsim/planner/plan_grid.hpp"
#include "syncsim/planner/plan_report.hpp"
#include "syncsim/planner/sweep_runner.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;
using namespace syncsim::planner;

namespace {

std::string example(const std::string& name) {
  return fmt::format("{}/{}", SYNCSIM_EXAMPLES_DIR, name);
}

Plan plan_for(const std::string& file, const std::string& gpus, double min_efficiency = 0.8) {
  const Scenario base = load_scenario(file);
  PlanGrid grid;
  grid.gpu_counts = parse_gpu_counts(gpus);
  grid.gpu_types = {base.cluster.gpu.name.value};
  grid.networks = {{"scenario", std::nullopt}};
  const auto points = plan_points(base, grid);
  std::vector<std::size_t> all;
  for (const SweepPoint& p : points) all.push_back(p.index);
  std::vector<PlanPoint> results(points.size());
  run_points(file, points, all, 2, [&](std::size_t i, const TrainingReport& r) {
    PlanPoint& p = results[i] = plan_point(points[i], r);
    p.price_per_hour = 1.8 * static_cast<double>(r.workers);
  });
  PlanGoal goal;
  goal.min_efficiency = min_efficiency;
  return analyze_plan(std::move(results), goal, "USD");
}

const PlanPoint& at(const Plan& plan, std::int64_t gpus) {
  for (const PlanPoint& p : plan.points) {
    if (p.gpus == gpus) return p;
  }
  throw std::logic_error("no such size");
}

}  // namespace

TEST_CASE("bert-large over two pods: plan recommends 16 GPUs and names the inter-node link at 32") {
  const Plan plan = plan_for(example("bert-large-two-pods.yaml"), "16,32");
  REQUIRE(plan.recommended == 0u);
  CHECK(plan.points[0].gpus == 16);
  CHECK(at(plan, 32).samples_per_s < at(plan, 16).samples_per_s);
  CHECK_THAT(at(plan, 32).bottleneck,
             Catch::StartsWith("communication: pod") && Catch::Contains("(inter-node network)"));
  CHECK_THAT(at(plan, 16).bottleneck, Catch::StartsWith("compute"));
}

TEST_CASE("a compute-bound model on a fat network keeps efficiency >= 0.9 up to 256 GPUs") {
  const Plan plan = plan_for(example("planner-compute-bound.yaml"), "8:256");
  REQUIRE(plan.points.size() == 6);
  for (const PlanPoint& p : plan.points) {
    INFO(p.gpus << " GPUs");
    CHECK(p.scaling_efficiency >= 0.9);
    CHECK_THAT(p.bottleneck, Catch::StartsWith("compute"));
  }
  REQUIRE(plan.configurations.size() == 1);
  CHECK_FALSE(plan.configurations[0].first_below);  // no knee inside the range
  CHECK(plan.points[*plan.configurations[0].knee].gpus == 256);
}

TEST_CASE("vgg16 over 25 Gbps Ethernet falls off steeply, the knee is where efficiency drops") {
  const Plan plan = plan_for(example("planner-vgg16-25gbe.yaml"), "8:64");
  CHECK(at(plan, 8).scaling_efficiency > 0.9);
  CHECK(at(plan, 16).scaling_efficiency < 0.5);
  REQUIRE(plan.configurations.size() == 1);
  const PlanConfiguration& c = plan.configurations[0];
  REQUIRE(c.knee);
  CHECK(plan.points[*c.knee].gpus == 8);
  REQUIRE(c.first_below);
  CHECK(plan.points[*c.first_below].gpus == 16);
  CHECK_THAT(at(plan, 16).bottleneck, Catch::Contains("inter-node network"));
  CHECK(plan.points[0].gpus == 8);  // the recommendation
}

TEST_CASE("the plan's grid resizes each kind of topology and rejects what it cannot") {
  CHECK(parse_gpu_counts("8:64") == std::vector<std::int64_t>{8, 16, 32, 64});
  CHECK(parse_gpu_counts("8:1024:4") == std::vector<std::int64_t>{8, 32, 128, 512});
  CHECK(parse_gpu_counts("16,24") == std::vector<std::int64_t>{16, 24});
  CHECK_THROWS_WITH(parse_gpu_counts("64:8"), Catch::Contains("--gpus: empty range"));
  CHECK_THROWS_WITH(parse_gpu_counts(""), Catch::Contains("--gpus"));
  CHECK_THROWS_WITH(parse_gpu_types({"A100-SXM4-80GB,Z100"}), Catch::Contains("--gpu-types: unknown GPU 'Z100'"));
  // An alias names the same catalog GPU: planned (and priced) twice otherwise.
  CHECK_THROWS_WITH(parse_gpu_types({"A100-SXM4-80GB,a100-80gb"}),
                    Catch::Equals("--gpu-types: A100-SXM4-80GB given twice: 'A100-SXM4-80GB' and 'a100-80gb' name the "
                                  "same GPU"));
  CHECK_THROWS_WITH(parse_gpu_types({"H100-SXM", "H100-SXM"}), Catch::Contains("H100-SXM-80GB given twice"));
  const auto nets = parse_networks({"ib=dgx:gpus=4,nic_bw=400Gbps;switch:n=8,bw=25Gbps"});
  REQUIRE(nets.size() == 2);
  CHECK(nets[0].label == "ib");
  CHECK(nets[1].label == "switch:n=8,bw=25Gbps");

  const Scenario base = load_scenario(example("planner-compute-bound.yaml"));
  PlanGrid grid{{12}, {"H100-SXM-80GB"}, nets};
  const auto points = plan_points(base, grid);
  REQUIRE(points.size() == 2);
  CHECK(points[0].overrides == std::vector<std::string>{"cluster.gpu=H100-SXM-80GB",
                                                        "cluster.topology=dgx:gpus=4,nic_bw=400Gbps",
                                                        "cluster.topology.nodes=3", "cluster.workers=12"});
  CHECK(points[1].overrides.at(2) == "cluster.topology.n=12");
  // The H100s on that fabric get their own NVLink rate where the run resolves the scenario (run/gpu_node.hpp), as
  // `syncsim run` of the point would. Every override is a valid scenario.
  for (const SweepPoint& p : points) CHECK_NOTHROW(load_scenario(example("planner-compute-bound.yaml"), p.overrides));

  const Scenario pods = load_scenario(example("bert-large-two-pods.yaml"));
  PlanGrid too_many{{64}, {"A100-SXM4-80GB"}, {{"scenario", std::nullopt}}};
  CHECK_THROWS_WITH(plan_points(pods, too_many), Catch::Contains("--gpus: 64 GPUs asked") && Catch::Contains("has 32"));

  // A measured step time is of the scenario's GPU: carried to another, it would make that GPU as fast.
  const Scenario measured = load_scenario(example("planner-compute-bound.yaml"), {"model.step_time=50ms"});
  CHECK_NOTHROW(plan_points(measured, PlanGrid{{12}, {measured.cluster.gpu.name.value}, nets}));
  CHECK_THROWS_WITH(plan_points(measured, grid), Catch::Contains("model.step_time: a step time measured on") &&
                                                     Catch::Contains("cannot stand for H100-SXM-80GB"));
}

TEST_CASE("the knee's sentence names the real cause: a link, stragglers, a parameter server's NIC") {
  const auto knee_line = [](const Plan& plan) {
    const std::string text = plan_text(plan, planner::PlanContext{"s", "", "", PlanGoal{}});
    const auto at = text.find("knee ");
    return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
  };
  // Exposed communication on the inter-pod link.
  CHECK_THAT(knee_line(plan_for(example("bert-large-two-pods.yaml"), "16,32")),
             Catch::Contains("exposed data-parallel communication on pod") && Catch::Contains("(inter-node network)"));
  // Jittered workers and a slow one: the wait, not compute. Both counts wait on GPU 13 (the baseline's too), so what
  // 64 add is lost to the jitter's longer tail (M = 0.94): the knee at a threshold of 0.95.
  CHECK_THAT(knee_line(plan_for(example("strategies-64gpu-stragglers.yaml"), "16,64", 0.95)),
             Catch::Contains("waiting on stragglers"));
  // One parameter server: its NIC.
  CHECK_THAT(knee_line(plan_for(std::string(SYNCSIM_PLANNER_DATA "/resnet50-one-server.yaml"), "2,4,8")),
             Catch::Contains("waiting on the parameter servers (ps0 -> sw0"));
}
