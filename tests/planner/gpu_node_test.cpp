// A GPU type's own node in a plan: a dgx fabric without nvlink_bw takes each GPU's NVLink rate from the catalog,
// and a fabric that says otherwise keeps what it says, with a warning naming both.
#include <catch2/catch.hpp>

#include <algorithm>

#include "syncsim/planner/gpu_node.hpp"
#include "syncsim/planner/plan_grid.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;
using namespace syncsim::planner;

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

TEST_CASE("plan points carry each GPU's node rate on a fabric that leaves it out") {
  const Scenario base = load_scenario(std::string(SYNCSIM_EXAMPLES_DIR) + "/bert-large-two-pods.yaml");
  PlanGrid grid{{16}, {"H100-SXM-80GB", "A100-SXM4-80GB"}, parse_networks({"rail100=dgx:gpus=8,nic_bw=100Gbps"})};
  const std::vector<SweepPoint> points = plan_points(base, grid);
  REQUIRE(points.size() == 2);
  const auto has = [](const SweepPoint& p, const std::string& text) {
    return std::any_of(p.overrides.begin(), p.overrides.end(),
                       [&](const std::string& o) { return o.find(text) != std::string::npos; });
  };
  CHECK(has(points[0], "nvlink_bw=450GB/s"));
  CHECK(has(points[1], "nvlink_bw=300GB/s"));
  CHECK(node_warnings(base, grid).empty());
}
