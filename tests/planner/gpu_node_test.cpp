// A GPU's own node, resolved wherever a scenario is (run/gpu_node.hpp): a dgx topology without nvlink_bw, nic_bw or
// pcie_bw takes the GPU's own rates from the catalog, a spec that says otherwise keeps what it says (a plan warns,
// naming both), and `syncsim run` and a one-point `syncsim plan` of the same point give the same numbers.
#include <catch2/catch.hpp>

#include <filesystem>

#include "syncsim/planner/plan_grid.hpp"
#include "syncsim/planner/sweep_runner.hpp"
#include "syncsim/run/gpu_node.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;
using namespace syncsim::planner;
using run::node_contradictions;
using run::with_gpu_node;

namespace {

const std::filesystem::path kNodeDefaults = std::filesystem::path(SYNCSIM_PLANNER_DATA) / "h100-node-defaults.yaml";

double run_samples(const std::vector<std::string>& overrides = {}) {
  return run::run_scenario(load_scenario(kNodeDefaults, overrides)).report.samples_per_second;
}

// One point of `syncsim plan` (the scenario's own topology, one GPU type, its GPU count), through the planner's calls.
double plan_samples(const std::string& gpu) {
  const Scenario base = load_scenario(kNodeDefaults);
  const PlanGrid grid{{8}, {gpu}, {PlanNetwork{"scenario", std::nullopt}}};
  const std::vector<SweepPoint> points = plan_points(base, grid);
  REQUIRE(points.size() == 1);
  double samples = 0;
  run_points(kNodeDefaults, points, {0}, 1,
             [&](std::size_t index, const TrainingReport& r) { samples = plan_point(points[index], r).samples_per_s; });
  return samples;
}

}  // namespace

TEST_CASE("a dgx fabric without nvlink_bw takes each GPU's own NVLink rate") {
  const TopologySpec fabric = parse_topology_spec("dgx:gpus=8,nic_bw=100Gbps", "--networks");
  CHECK(with_gpu_node(fabric, find_gpu("H100-SXM-80GB")).params.at("nvlink_bw") == "450GB/s");
  CHECK(with_gpu_node(fabric, find_gpu("A100-SXM4-80GB")).params.at("nvlink_bw") == "300GB/s");
  // The fabric's NIC rate stays; a fabric without one gets the reference node's, and its PCIe generation.
  CHECK(with_gpu_node(fabric, find_gpu("H100-SXM-80GB")).params.at("nic_bw") == "100Gbps");
  const TopologySpec bare = parse_topology_spec("dgx:gpus=8", "--networks");
  CHECK(with_gpu_node(bare, find_gpu("H100-SXM-80GB")).params.at("nic_bw") == "400Gbps");
  CHECK(with_gpu_node(bare, find_gpu("A100-SXM4-80GB")).params.at("nic_bw") == "200Gbps");
  CHECK(with_gpu_node(bare, find_gpu("A100-SXM4-80GB")).params.at("pcie_bw") == "32GB/s");
  CHECK_FALSE(with_gpu_node(bare, find_gpu("H100-PCIe-80GB")).params.contains("nic_bw"));
  const TopologySpec given = parse_topology_spec("dgx:gpus=8,nvlink_bw=450GB/s", "--networks");
  CHECK(with_gpu_node(given, find_gpu("A100-SXM4-80GB")).params.at("nvlink_bw") == "450GB/s");
  const TopologySpec ring = parse_topology_spec("switch:n=8,bw=100Gbps", "--networks");
  CHECK(with_gpu_node(ring, find_gpu("H100-SXM-80GB")).params == ring.params);
}

TEST_CASE("a fabric that contradicts a GPU's node is a warning naming both") {
  const TopologySpec h100_rate = parse_topology_spec("dgx:gpus=8,nvlink_bw=450GB/s", "--networks");
  const auto a100 = node_contradictions(h100_rate, "rail400", find_gpu("A100-SXM4-80GB"));
  REQUIRE(a100.size() == 1);
  CHECK_THAT(a100[0], Catch::Contains("'rail400'") && Catch::Contains("nvlink_bw=450GB/s") &&
                          Catch::Contains("A100-SXM4-80GB's NVLink is 300 GB/s"));
  CHECK(node_contradictions(h100_rate, "rail400", find_gpu("H100-SXM-80GB")).empty());
  const TopologySpec wide = parse_topology_spec("dgx:gpus=16", "--networks");
  const auto h100 = node_contradictions(wide, "wide", find_gpu("H100-SXM-80GB"));
  REQUIRE(h100.size() == 1);
  CHECK_THAT(h100[0], Catch::Contains("16 GPUs on one node's NVLink") && Catch::Contains("joins 8"));
}

TEST_CASE("run and a one-point plan of a scenario without nvlink_bw give the same samples/s") {
  const double run_h100 = run_samples();
  CHECK(plan_samples("H100-SXM-80GB") == run_h100);
  // The H100's node, not the dgx generator's 300 GB/s default: the run is the one with the rates written out.
  CHECK(run_samples({"cluster.topology.nvlink_bw=450GB/s", "cluster.topology.nic_bw=400Gbps",
                     "cluster.topology.pcie_bw=64GB/s"}) == run_h100);
  CHECK(run_samples({"cluster.topology.nvlink_bw=300GB/s"}) < run_h100);
  // Another GPU type planned on the scenario's topology gets its own node, as `run --set cluster.gpu=` does.
  CHECK(plan_samples("A100-SXM4-80GB") == run_samples({"cluster.gpu=A100-SXM4-80GB"}));
}
