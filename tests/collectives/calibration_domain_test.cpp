// A calibration's domain against the system it is used on (calibration_domain.hpp): the system recorded, one
// difference per GPU, link rate, unfitted class or scale far beyond, and nothing inside the domain.
#include <catch2/catch.hpp>
#include <sstream>

#include "syncsim/collectives/calibration.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;

namespace {

// What `calibrate` records for the two-node A100 RoCE log: 16 ranks on 2 nodes, NVLink at 300 GB/s, one 200 Gbps
// (25 GB/s) rail per GPU.
CalibrationDomain a100_roce() {
  const Topology topology = build_topology("dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps");
  Router router(topology);
  const SystemShape shape = system_shape(router, 16, "A100-SXM4-40GB");
  CalibrationDomain domain;
  domain.gpu = shape.gpu;
  domain.nodes = shape.nodes;
  domain.ranks = shape.ranks;
  domain.links = shape.links;
  domain.min_size_bytes = 64;
  domain.max_size_bytes = std::int64_t{8} << 30;
  return domain;
}

SystemShape shape_of(const std::string& spec, std::size_t ranks, const std::string& gpu) {
  const Topology topology = build_topology(spec);
  Router router(topology);
  return system_shape(router, ranks, gpu);
}

}  // namespace

TEST_CASE("a two-node dgx system crosses NVLink and the network at their nominal rates", "[calibration-domain]") {
  const CalibrationDomain domain = a100_roce();
  CHECK(domain.nodes == 2);
  REQUIRE(domain.links.size() == 2);
  CHECK(domain.links[0].kind == LinkKind::nvlink);
  CHECK(domain.links[0].rate_gb_per_s == Approx(300));
  CHECK(domain.links[1].kind == LinkKind::network);
  CHECK(domain.links[1].rate_gb_per_s == Approx(25));  // 200 Gb/s
  CHECK(domain.links[1].count >= 16);                  // a rail per GPU, and the switch links above
}

TEST_CASE("the same system, or a few more nodes of it, is inside the domain", "[calibration-domain]") {
  const CalibrationDomain domain = a100_roce();
  CHECK(compare_domain(domain, shape_of("dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps", 16, "A100-SXM4-40GB"))
            .empty());
  CHECK(compare_domain(domain, shape_of("dgx:nodes=8,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps", 64, "A100-SXM4-40GB"))
            .empty());
  // An unknown GPU is no difference: nothing says it differs.
  CHECK(compare_domain(domain, shape_of("dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps", 16, "")).empty());
}

TEST_CASE("an H100 cluster on 400 Gb/s is named by its GPU and both link rates", "[calibration-domain]") {
  const std::vector<std::string> differences =
      compare_domain(a100_roce(), shape_of("dgx:nodes=4,gpus=8,nvlink_bw=450GB/s,nic_bw=400Gbps", 32, "H100-SXM-80GB"));
  REQUIRE(differences.size() == 3);
  CHECK_THAT(differences[0], Catch::StartsWith("GPU: fitted on A100-SXM4-40GB, used with H100-SXM-80GB"));
  CHECK_THAT(differences[1], Catch::StartsWith("nvlink link rate: fitted on 300 GB/s"));
  CHECK_THAT(differences[2], Catch::StartsWith("net link rate: fitted on 25 GB/s (200 Gb/s), used on 50 GB/s"));
}

TEST_CASE("a class no log crossed and a scale far beyond are differences", "[calibration-domain]") {
  CalibrationDomain one_node = a100_roce();
  one_node.nodes = 1;
  one_node.ranks = 8;
  one_node.links.pop_back();  // a one-node fit never crossed the network
  const std::vector<std::string> differences =
      compare_domain(one_node, shape_of("dgx:nodes=16,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps", 128, "A100-SXM4-40GB"));
  REQUIRE(differences.size() == 2);
  CHECK_THAT(differences[0], Catch::StartsWith("net links: no fitted log crossed them"));
  CHECK_THAT(differences[1], Catch::StartsWith("scale: fitted on 8 ranks on 1 node(s), used on 128 ranks"));
}

TEST_CASE("the domain is written and read back, and a file without one still reads", "[calibration-domain]") {
  Calibration calibration;
  calibration.topology = "dgx:nodes=2,gpus=8";
  CalibrationRegime regime;
  regime.name = "bandwidth";
  regime.window = RegimeWindow{Bytes{1000}, Bytes{5000}, LinkKind::network};
  calibration.regimes.push_back(regime);
  calibration.domain = a100_roce();
  calibration.domain->logs.push_back({"a.log", "2.18.5+cuda12.2", {"NCCL_IB_HCA=mlx5", "NCCL_ALGO=Tree"}});
  std::ostringstream text;
  write_calibration(text, calibration);
  const Calibration back = parse_calibration(text.str(), "cal.yaml");
  REQUIRE(back.domain);
  CHECK(*back.domain == *calibration.domain);
  REQUIRE(back.regimes.at(0).window);
  CHECK(back.regimes[0].window->min_size == Bytes{1000});
  CHECK(back.regimes[0].window->link_class == LinkKind::network);
  calibration.domain.reset();
  std::ostringstream old;
  write_calibration(old, calibration);
  CHECK_FALSE(parse_calibration(old.str(), "old.yaml").domain);
}

TEST_CASE("a window runs only the collectives in it that cross its class", "[calibration-domain]") {
  CalibratedModel model;
  model.regimes.resize(3);
  model.windows = {std::nullopt, std::nullopt, RegimeWindow{Bytes{100}, Bytes{200}, LinkKind::network}};
  const std::array<bool, 3> nvlink_only{true, false, false};
  const std::array<bool, 3> network{true, false, true};
  CHECK(calibrated_regimes(model, Bytes{150}, network) == std::vector<std::size_t>{2});
  CHECK(calibrated_regimes(model, Bytes{150}, nvlink_only) == std::vector<std::size_t>{0, 1});
  CHECK(calibrated_regimes(model, Bytes{201}, network) == std::vector<std::size_t>{0, 1});
}
