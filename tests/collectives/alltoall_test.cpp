// AllToAll on the flow model: the closed form on a switch, run in bulk (one max-min solve per step, not n^2 flows)
// and equal to the per-flow run; contended steps fall back to flows and match them; the hierarchical algorithm's
// closed form on DGX-style nodes.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "syncsim/collectives/collective_executor.hpp"
#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;

namespace {

constexpr std::int64_t kGiB = std::int64_t{1} << 30;

CollectiveOutcome alltoall(Router& router, std::int64_t size, bool bulk, Algorithm algorithm = Algorithm::direct) {
  CollectiveSpec spec;
  spec.op = CollectiveOp::alltoall;
  spec.size = Bytes{size};
  spec.algorithm = algorithm;
  spec.bulk = bulk;
  return simulate_collective(router, spec);
}

void check_same_links(const CollectiveOutcome& a, const CollectiveOutcome& b) {
  REQUIRE(a.links.size() == b.links.size());
  for (std::size_t i = 0; i < a.links.size(); ++i) {
    CHECK(a.links[i].link == b.links[i].link);
    CHECK(a.links[i].bytes_carried == Approx(b.links[i].bytes_carried).epsilon(1e-12));
    CHECK(a.links[i].busy_time == b.links[i].busy_time);
  }
}

}  // namespace

TEST_CASE("AllToAll on a switch: each uplink carries (N-1)/N S, busbw = the link rate, in bulk", "[alltoall]") {
  // switch:n=N,bw=100Gbps,lat=5us: a route is 2 links of 5 us, a rank's N-1 sends share its 12.5 GB/s uplink, so
  // the step takes 10 us + (N-1)/N S / B, and busbw = (N-1)/N S / t -> B.
  for (const std::size_t n : {8, 64, 512}) {
    const Topology topology = build_topology(fmt::format("switch:n={},bw=100Gbps,lat=5us", n));
    Router router(topology);
    const CollectiveOutcome out = alltoall(router, kGiB, true);
    INFO("N = " << n);
    CHECK(out.algorithm == Algorithm::direct);
    CHECK(out.channels == 1);
    // One bulk step, no flows: the step is timed by one max-min solve over its n(n-1) transfers.
    CHECK(out.stats.bulk_steps == 1);
    CHECK(out.stats.flows == 0);
    CHECK(out.stats.transfers == n * (n - 1));
    CHECK(out.stats.bytes_sent ==
          Approx(static_cast<double>(kGiB) * static_cast<double>(n - 1)));  // (N-1)/N S per rank
    const double nd = static_cast<double>(n);
    const double exact = 10e-6 + (nd - 1) / nd * static_cast<double>(kGiB) / 12.5e9;
    // Each block drains at B/(N-1) in whole picoseconds: the closed form to within one.
    CHECK(out.time.ps() == std::llround(exact * 1e12));
    const auto bw = bus_bandwidth(CollectiveOp::alltoall, n, Bytes{kGiB}, out.time);
    CHECK(bw.busbw.gb_per_s() == Approx(12.5).epsilon(0.01));
    // Every link (N up, N down) carries (N-1)/N S and is busy for the whole drain.
    REQUIRE(out.links.size() == 2 * n);
    for (const LinkTraffic& link : out.links) {
      CHECK(link.bytes_carried == Approx(static_cast<double>(kGiB) * (nd - 1) / nd).epsilon(1e-12));
      CHECK(link.busy_time == out.time - SimTime::from_us(10));
    }
  }
}

TEST_CASE("AllToAll in bulk equals the per-flow run to the picosecond", "[alltoall]") {
  for (const std::size_t n : {8, 64}) {
    const Topology topology = build_topology(fmt::format("switch:n={},bw=100Gbps,lat=5us", n));
    Router router(topology);
    for (const std::int64_t size : {std::int64_t{4096} * 64, std::int64_t{100'000'000}, kGiB}) {
      const CollectiveOutcome bulk = alltoall(router, size, true);
      const CollectiveOutcome flows = alltoall(router, size, false);
      INFO("N = " << n << ", " << size << " bytes");
      CHECK(flows.stats.flows == n * (n - 1));
      CHECK(flows.stats.bulk_steps == 0);
      CHECK(bulk.time == flows.time);
      CHECK(bulk.stats.bytes_sent == Approx(flows.stats.bytes_sent));
      check_same_links(bulk, flows);
    }
  }
}

TEST_CASE("a contended AllToAll falls back to flows and matches the per-flow run", "[alltoall]") {
  // An oversubscribed fat tree: flows leaving a leaf get less than those inside it. (A flow cutting into a bulk
  // all-to-all step: contention_test.cpp.)
  const Topology topology = build_topology("fattree:n=32,radix=8,tiers=2,bw=100Gbps,lat=1us,oversub=4");
  Router router(topology);
  const CollectiveOutcome bulk = alltoall(router, 64 << 20, true);
  const CollectiveOutcome flows = alltoall(router, 64 << 20, false);
  CHECK(bulk.stats.bulk_steps == 0);
  CHECK(bulk.stats.flows == 32 * 31);
  CHECK(bulk.time == flows.time);
  // The uplinks, not the GPUs' links, bound it: slower than the switch's closed form.
  const auto bw = bus_bandwidth(CollectiveOp::alltoall, 32, Bytes{64 << 20}, bulk.time);
  CHECK(bw.busbw.gb_per_s() < 12.5 * 0.5);
}

TEST_CASE("hierarchical AllToAll on DGX-style nodes: the NVLink step, then the rail step, each in bulk", "[alltoall]") {
  // 4 nodes of 8 GPUs: step 0 puts 7 blocks of S/8 on each GPU's 300 GB/s NVLink; step 1 puts 3 blocks of S/4 on
  // each GPU's NIC (200 Gb/s = 25 GB/s, below its PCIe link), all on the GPU's own rail.
  const Topology topology = build_topology("dgx:nodes=4,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps,net_lat=2us");
  Router router(topology);
  const CollectiveOutcome out = alltoall(router, kGiB, true, Algorithm::hierarchical);
  CHECK(out.stats.bulk_steps == 2);
  CHECK(out.stats.flows == 0);
  const Route& nvlink = router.gpu_route(0, 1);
  const Route& rail = router.gpu_route(0, 8);
  const double s = static_cast<double>(kGiB);
  const double expected = nvlink.latency.seconds() + 7.0 / 8 * s / 300e9 + rail.latency.seconds() + 3.0 / 4 * s / 25e9;
  CHECK(std::llabs(out.time.ps() - std::llround(expected * 1e12)) <= 2);
  CHECK(alltoall(router, kGiB, false, Algorithm::hierarchical).time == out.time);
  // Direct sends 3/4 of every buffer across nodes at once, most of it across rails through the spines; with
  // per-pair rates that differ it runs flow by flow.
  const CollectiveOutcome direct = alltoall(router, kGiB, true);
  CHECK(direct.stats.bulk_steps == 0);
  CHECK(direct.stats.flows == 32 * 31);
}

TEST_CASE("auto runs NCCL's direct AllToAll, best also tries hierarchical", "[alltoall]") {
  CHECK(candidate_algorithms(CollectiveOp::alltoall, 512, false) == std::vector<Algorithm>{Algorithm::direct});
  CHECK(candidate_algorithms(CollectiveOp::alltoall, 16, true) == std::vector<Algorithm>{Algorithm::direct});
  CHECK(candidate_algorithms(CollectiveOp::alltoall, 16, true, true) ==
        std::vector<Algorithm>{Algorithm::direct, Algorithm::hierarchical});
  CHECK(candidate_algorithms(CollectiveOp::alltoall, 16, false, true) == std::vector<Algorithm>{Algorithm::direct});
}

TEST_CASE("with NCCL's latency model AllToAll takes LL or Simple, never LL128, as NCCL's point-to-point does",
          "[alltoall]") {
  const Topology topology = build_topology("switch:n=8,bw=100Gbps,lat=5us");
  Router router(topology);
  CollectiveSpec spec;
  spec.op = CollectiveOp::alltoall;
  spec.latency = LatencySource::nccl;
  spec.size = Bytes{8 * 1024};
  CHECK(simulate_collective(router, spec).protocol == Protocol::ll);
  spec.size = Bytes{kGiB};
  CHECK(simulate_collective(router, spec).protocol == Protocol::simple);
  spec.protocol = Protocol::ll128;  // asked for, it runs
  CHECK(simulate_collective(router, spec).protocol == Protocol::ll128);
}
