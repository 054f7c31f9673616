// A log's NVLink fabric from its GPU (gpu_spec.hpp): the rate, NVLS on NVSwitches that reduce, and multi-node NVLink
// domains laid out as racks of trays; and the datasheet-only predictions they give (docs/accuracy.md).
#include <catch2/catch.hpp>
#include <string>

#include "shipped_logs.hpp"
#include "syncsim/collectives/error_summary.hpp"
#include "syncsim/collectives/nvls_plan.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/validation/log_system.hpp"

using namespace syncsim;
using namespace syncsim::shipped_logs;

namespace {

ErrorSummary predict(const NcclTestsLog& log, std::string_view topology) {
  LogSystem system(log, topology, "t");
  std::vector<std::int64_t> sizes;
  std::vector<double> errors;
  for (const MeasuredPoint& p : measured_points(log, Placement::out_of_place)) {
    sizes.push_back(p.size.value);
    errors.push_back(relative_error(system.simulate(p.size, nullptr).time.us(), p.time_us));
  }
  return summarize_errors(sizes, errors);
}

}  // namespace

TEST_CASE("a dgx family takes the log's GPU's NVLink rate and racks of trays", "[log-system][nvlink]") {
  const GpuSpec h100 = find_gpu("H100-SXM-80GB");
  const GpuSpec gb200 = find_gpu("GB200");
  CHECK(scale_topology_spec("dgx:nodes=1", 8, 1, "t", h100) == "dgx:nodes=1,gpus=8,nvlink_bw=450GB/s");
  CHECK(scale_topology_spec("dgx:nvlink_bw=300GB/s", 8, 1, "t", h100) == "dgx:nvlink_bw=300GB/s,nodes=1,gpus=8");
  // 32 trays of 4 GB200s: 2 racks (NVL72 domains of at most 18 trays), 16 trays each.
  CHECK(scale_topology_spec("dgx:nic_bw=400Gbps", 128, 32, "t", gb200) ==
        "dgx:nic_bw=400Gbps,nodes=32,gpus=4,nvlink_bw=900GB/s,nvlink_domain=16");
  CHECK(scale_topology_spec("dgx:nodes=36,gpus=4,nvlink_domain=18", 72, 18, "t", gb200) ==
        "dgx:nodes=18,gpus=4,nvlink_domain=18,nvlink_bw=900GB/s");
  CHECK_THROWS_WITH(scale_topology_spec("dgx:nvlink_domain=18", 4 * 19, 19, "--topology", gb200),
                    Catch::Contains("19 hosts do not fill 2 NVLink domains"));
}

TEST_CASE("the H100 node (NVLS) predicted within 10% geomean from 1 MiB, with no calibration", "[log-system][nvlink]") {
  const NcclTestsLog log = read_nccl_tests_log(shipped("h100-1node-8gpu-nvswitch.log"));
  const ErrorSummary nvls = predict(log, "dgx:nodes=1,gpus=8");
  REQUIRE(nvls.geomean_abs_error_1mib);
  CHECK(*nvls.geomean_abs_error_1mib <= 0.10);
  // NVLS off, the same node is held to NCCL's 370 GB/s ring ceiling, 31% slow at 16 GiB: 9.0% geomean from
  // 1 MiB against NVLS's 8.0% (NCCL's tree carries the mid sizes either way).
  const ErrorSummary ring = predict(log, "dgx:nodes=1,gpus=8,nvls=off");
  CHECK(*ring.geomean_abs_error_1mib > *nvls.geomean_abs_error_1mib);
}

TEST_CASE("two GB200 NVL72 racks predicted as the rings they ran, with no calibration", "[log-system][nvlink]") {
  // 32 trays of 4 become 2 racks (NCCL's MNNVL nodes), each one NVLink domain; auto leaves NVLS off on such a
  // domain, so the ring (or the tree) runs 32 channels, each leaving its rack through its own GPU's NIC.
  const NcclTestsLog log = read_nccl_tests_log(shipped("gb200-nvl72-2rack-128gpu.log"));
  LogSystem system(log, "dgx:nic_bw=400Gbps", "t");
  std::vector<std::int64_t> sizes;
  std::vector<double> errors;
  for (const MeasuredPoint& p : measured_points(log, Placement::out_of_place)) {
    const CollectiveOutcome outcome = system.simulate(p.size, nullptr);
    INFO("size " << p.size.value << ": " << to_string(outcome.algorithm) << " x" << outcome.channels);
    CHECK(outcome.channels == 32);
    CHECK(!is_nvls(outcome.algorithm));
    const double error = relative_error(outcome.time.us(), p.time_us);
    CHECK(std::abs(error) <= 0.15);  // issue 16's bar, at every size of the log
    sizes.push_back(p.size.value);
    errors.push_back(error);
  }
  CHECK(*summarize_errors(sizes, errors).geomean_abs_error_1mib <= 0.10);
}
