// The simulated system behind a log: the topology family scaled to the log, its link classes, the measured points.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "shipped_logs.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/validation/log_system.hpp"

using namespace syncsim;
using namespace syncsim::shipped_logs;

TEST_CASE("a dgx family takes the log's hosts and ranks per host, other keys in place", "[log-system]") {
  CHECK(scale_topology_spec("dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps", 8, 1, "t") ==
        "dgx:nodes=1,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps");
  CHECK(scale_topology_spec("dgx:nvlink_bw=300GB/s", 32, 4, "t") == "dgx:nvlink_bw=300GB/s,nodes=4,gpus=8");
  // A rail count above the new GPUs per host falls to one NIC per GPU.
  CHECK(scale_topology_spec("dgx:nodes=2,gpus=8,rails=8", 4, 1, "t") == "dgx:nodes=1,gpus=4,rails=4");
  CHECK(scale_topology_spec("dgx:nodes=2,gpus=8,rails=2", 4, 1, "t") == "dgx:nodes=1,gpus=4,rails=2");
}

TEST_CASE("single-tier families take the rank count, torus and file specs stay as given", "[log-system]") {
  CHECK(scale_topology_spec("switch:n=4,bw=32GB/s,link_kind=pcie", 2, 1, "t") == "switch:n=2,bw=32GB/s,link_kind=pcie");
  CHECK(scale_topology_spec("ring:bw=1Gbps", 6, 2, "t") == "ring:bw=1Gbps,n=6");
  CHECK(scale_topology_spec("torus:dims=4x4,bw=50GB/s", 8, 1, "t") == "torus:dims=4x4,bw=50GB/s");
}

TEST_CASE("uneven hosts cannot scale a dgx family", "[log-system]") {
  CHECK_THROWS_WITH(scale_topology_spec("dgx:nodes=2,gpus=8", 10, 3, "--topology"),
                    Catch::Contains("--topology") && Catch::Contains("10 ranks on 3 hosts"));
  CHECK_THROWS_AS(scale_topology_spec(":n=2", 2, 1, "--topology"), InputError);
}

TEST_CASE("a log's system knows the link classes its collective uses", "[log-system]") {
  const NcclTestsLog one = read_nccl_tests_log(shipped("a100-sxm4-1node-8gpu-nvswitch.log"));
  const NcclTestsLog two = read_nccl_tests_log(shipped("a100-sxm4-2node-16gpu-roce-16x100g.log"));
  const std::string family = "dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps";
  LogSystem single(one, family, "t");
  LogSystem dual(two, family, "t");
  CHECK(single.topology_spec() == "dgx:nodes=1,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps");
  CHECK(single.ranks() == 8);
  CHECK(single.link_classes() == std::vector<LinkKind>{LinkKind::nvlink});
  CHECK(dual.ranks() == 16);
  CHECK(dual.link_classes() == std::vector<LinkKind>{LinkKind::nvlink, LinkKind::network});
}

TEST_CASE("a topology with fewer GPUs than the log's ranks is refused", "[log-system]") {
  const NcclTestsLog log = read_nccl_tests_log(shipped("a100-sxm4-1node-8gpu-nvswitch.log"));
  CHECK_THROWS_WITH(LogSystem(log, "torus:dims=2x2,bw=50GB/s", "--topology"),
                    Catch::Contains("8 ranks") && Catch::Contains("4 GPUs"));
}

TEST_CASE("measured points pick a placement and leave out empty sizes", "[log-system]") {
  // The all_gather log starts with a size-0 row (and a dropped repeat of it); its 32-byte row measured 10.52 us
  // out-of-place and 10.01 us in-place.
  const NcclTestsLog log = read_nccl_tests_log(shipped("rtx2080ti-pcie3-2gpu-nop2p.all_gather.log"));
  const auto out = measured_points(log, Placement::out_of_place);
  const auto in = measured_points(log, Placement::in_place);
  const auto best = measured_points(log, Placement::min);
  REQUIRE(out.size() == log.rows.size() - 1);
  CHECK(out.front().size.value == 32);
  CHECK(out.front().time_us == 10.52);
  CHECK(in.front().time_us == 10.01);
  CHECK(best.front().time_us == 10.01);
  CHECK(out.front().line == log.rows[1].line);
  CHECK(parse_placement("min") == Placement::min);
  CHECK(parse_placement("in-place") == Placement::in_place);
  CHECK_THROWS_WITH(parse_placement("fastest"), Catch::Contains("out_of_place, in_place or min"));
}

TEST_CASE("a log's system simulates with NCCL's model or a calibrated one", "[log-system]") {
  const NcclTestsLog log = read_nccl_tests_log(shipped("l40s-pcie-4gpu-ring.log"));
  LogSystem system(log, "switch:n=4,bw=32GB/s,link_kind=pcie", "t");
  const CollectiveOutcome nccl = system.simulate(Bytes{1 << 20}, nullptr);
  CHECK(nccl.protocol.has_value());
  // One regime: launch 10 us, 2 us per step at full rate. A ring AllReduce on 4 ranks takes 6 steps of 1/4 MiB
  // each over 32 GB/s: 10 + 6 * (2 + 262144 / 32e3) us.
  TransferCost cost;
  cost.step_latency = std::array<SimTime, 3>{SimTime::from_us(2), SimTime::from_us(2), SimTime::from_us(2)};
  cost.launch = SimTime::from_us(10);
  const CollectiveOutcome ring = system.simulate(Bytes{1 << 20}, cost, Algorithm::ring);
  CHECK(ring.time.us() == Approx(10 + 6 * (2 + 262144 / 32e3)).epsilon(1e-6));
  CHECK(ring.regime == std::optional<std::size_t>(0));
}

TEST_CASE("a log's GPUs set NCCL's bus-bandwidth ceiling: 235 GB/s for A100, none for V100 or an unknown GPU",
          "[log-system]") {
  const NcclTestsLog a100 = read_nccl_tests_log(shipped("a100-sxm4-1node-8gpu-nvswitch.log"));
  REQUIRE(LogSystem(a100, "dgx:nodes=1,gpus=8,nvlink_bw=300GB/s", "t").busbw_cap().has_value());
  CHECK(LogSystem(a100, "dgx:nodes=1,gpus=8,nvlink_bw=300GB/s", "t").busbw_cap()->gb_per_s() == Approx(235));
  const NcclTestsLog h100 = read_nccl_tests_log(shipped("h100-1node-8gpu-nvswitch.log"));
  CHECK(LogSystem(h100, "dgx:nodes=1,gpus=8,nvlink_bw=450GB/s", "t").busbw_cap()->gb_per_s() == Approx(370));
  const NcclTestsLog v100 = read_nccl_tests_log(shipped("v100-dgx1-2node-16gpu-roce-2x100g.log"));
  CHECK_FALSE(LogSystem(v100, "dgx:nodes=2,gpus=8,nvlink_bw=150GB/s,nic_bw=100Gbps,rails=2", "t").busbw_cap());
  NcclTestsLog unknown = a100;
  unknown.gpu_names = {"NVIDIA Imaginary-9000"};
  CHECK_FALSE(LogSystem(unknown, "dgx:nodes=1,gpus=8,nvlink_bw=300GB/s", "t").busbw_cap());
}

// Issue 4's datasheet-only bar: with a topology describing the system and datasheet link rates (and NCCL's own
// tuning constants), large-message busbw within 25% of the published measurement. The 2-node A100 log is left
// out: its publisher calls the fabric untuned, and it delivers 36% of its NICs' datasheet rate (docs/accuracy.md).
TEST_CASE("datasheet prediction: large-message busbw within 25% for the A100 node and the V100 pair", "[log-system]") {
  struct System {
    const char* log;
    const char* topology;
  };
  for (const System system : {System{"a100-sxm4-1node-8gpu-nvswitch.log", "dgx:nodes=1,gpus=8,nvlink_bw=300GB/s"},
                              System{"v100-dgx1-2node-16gpu-roce-2x100g.log",
                                     "dgx:nodes=2,gpus=8,nvlink_bw=150GB/s,nic_bw=100Gbps,rails=2"}}) {
    const NcclTestsLog log = read_nccl_tests_log(shipped(system.log));
    LogSystem model(log, system.topology, "t");
    double ratio_sum = 0;
    int count = 0;
    for (const MeasuredPoint& p : measured_points(log, Placement::out_of_place)) {
      if (p.size.value < (std::int64_t{256} << 20)) continue;
      ratio_sum += p.time_us / model.simulate(p.size, nullptr).time.us();  // predicted busbw / measured busbw
      ++count;
    }
    INFO(system.log);
    REQUIRE(count > 0);
    CHECK(std::abs(ratio_sum / count - 1) <= 0.25);
  }
}
