// NCCL's tree at scale (issue 16): against the ring on many DGX nodes, what auto picks with NCCL's tree correction,
// NCCL's tree chunks, and every tree op running to the end with its bytes on switch, dgx and fat-tree topologies.
#include <catch2/catch.hpp>

#include <algorithm>

#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/collectives/tree_tuning.hpp"
#include "syncsim/topology/topology_spec.hpp"
#include "test_fabrics.hpp"

using namespace syncsim;
using namespace syncsim::test_fabrics;

namespace {
constexpr const char* kSixteenNodes = "dgx:nodes=16,gpus=8,nic_bw=400Gbps";

}  // namespace

TEST_CASE("16 DGX nodes at 400 Gbps: the tree within 2x of the ring at 25 MB, faster at 64 KiB, auto takes it",
          "[nccl_tree]") {
  const Topology topology = build_topology(kSixteenNodes);
  Router router(topology);
  for (const std::int64_t size : {std::int64_t{64} * 1024, std::int64_t{25'000'000}}) {
    INFO("size " << size);
    const CollectiveOutcome tree = simulate_nccl(router, size, Algorithm::tree);
    const CollectiveOutcome ring = simulate_nccl(router, size, Algorithm::ring);
    CHECK(tree.channels == 16);  // a pair per rail
    CHECK(tree.time.seconds() < 2 * ring.time.seconds());
    if (size < 1'000'000) CHECK(tree.time < ring.time);
    // NCCL's tuner takes the tree for small and medium AllReduces across many nodes.
    const CollectiveOutcome chosen = simulate_nccl(router, size, std::nullopt);
    CHECK(chosen.algorithm == Algorithm::tree);
    CHECK(chosen.time == tree.time);  // the correction ranks, the simulated time is reported
  }
}

TEST_CASE("2 DGX nodes: the tree's large AllReduce is faster by simulation, but auto runs the ring as NCCL would",
          "[nccl_tree]") {
  // Each node sends S over the network in a tree and 2(n-1)/n S in a ring; NCCL's tuner models the tree's bandwidth
  // below the ring's whatever the node count (tree_tuning.hpp), so it runs the ring.
  const Topology topology = build_topology("dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps");
  Router router(topology);
  const std::int64_t size = std::int64_t{1} << 30;
  CHECK(simulate_nccl(router, size, Algorithm::tree).time < simulate_nccl(router, size, Algorithm::ring).time);
  CHECK(simulate_nccl(router, size, std::nullopt).algorithm == Algorithm::ring);
  CHECK(simulate_nccl(router, 8, std::nullopt).algorithm == Algorithm::tree);
}

TEST_CASE("NCCL's tree chunks: Simple 512 KiB, LL 32 KiB, LL128 576,000 B halved for small collectives",
          "[nccl_tree]") {
  const Bytes big{std::int64_t{1} << 30};
  CHECK(tree_chunk_bytes(Protocol::simple, big, 16, 16, 128) == 512 * 1024);
  CHECK(tree_chunk_bytes(std::nullopt, big, 16, 16, 128) == 512 * 1024);
  CHECK(tree_chunk_bytes(Protocol::ll, big, 16, 16, 128) == 32 * 1024);
  CHECK(tree_chunk_bytes(Protocol::ll128, big, 16, 16, 128) == 576'000);
  // 16 nodes of 8: s = 1 + 4 + 0.8 = 5.8; 1 MiB / (16 x 576,000) = 0 < 5.8 x 64 / 8: halve to 144,000 (> 128 KiB),
  // then 72,000 < 128 KiB stops the first loop; 0 < 5.8 x 16 / 8 halves on to 36,000 and 18,000 stops below 32 KiB.
  CHECK(tree_chunk_bytes(Protocol::ll128, Bytes{1 << 20}, 16, 16, 128) == 18'000);
  CHECK(tree_slices(Bytes{1}, 512 * 1024) == 1);
  CHECK(tree_slices(Bytes{3 * 512 * 1024 + 1}, 512 * 1024) == 4);
  CHECK(tree_slices(big, 512 * 1024) == kMaxTreeSlices);
}

TEST_CASE("auto ranks the tree as NCCL does: correction on the bandwidth part, never faster than NCCL's ring ratio",
          "[nccl_tree]") {
  // treeCorrectionFactor, Simple, index log2(bytes / 64): 64 KiB is index 10 (0.6), 64 B index 0 (0.9).
  CHECK(tree_correction_factor(Protocol::simple, Bytes{64 * 1024}) == Approx(0.6));
  CHECK(tree_correction_factor(Protocol::ll, Bytes{64}) == Approx(1.0));
  CHECK(tree_correction_factor(Protocol::simple, Bytes{std::int64_t{1} << 30}) == Approx(1.0));  // past 256 MiB
  CHECK(tree_correction_factor(Protocol::ll128, Bytes{8}) == Approx(1.0));
  // 16 nodes of 8, LL128: latency 4.4 us launch + 2 (7 x 1.2 + 4 x 8.5) us = 89.2 us.
  const SimTime latency = SimTime::from_us(4.4 + 2 * (7 * 1.2 + 4 * 8.5));
  const SimTime simulated = latency + SimTime::from_us(60);
  const double f = tree_correction_factor(Protocol::ll128, Bytes{1 << 20});  // index 14: 0.6
  CHECK(f == Approx(0.6));
  CHECK(tree_ranking_time(simulated, Protocol::ll128, Bytes{1 << 20}, 16, 128).seconds() ==
        Approx((latency + SimTime::from_us(60 / f)).seconds()).epsilon(1e-6));
  CHECK(tree_ranking_time(SimTime::from_us(10), Protocol::ll128, Bytes{1 << 20}, 16, 128) == SimTime::from_us(10));
  // Never more bandwidth than NCCL's model gives the tree against the ring: R = (128/254) / 0.46 of its busy time.
  const double ratio = (128.0 / 254.0) / 0.46;
  CHECK(tree_ranking_time(simulated, Protocol::ll128, Bytes{1 << 20}, 16, 128, SimTime::from_us(100)).seconds() ==
        Approx((latency + SimTime::from_us(100 * ratio / f)).seconds()).epsilon(1e-6));
}

TEST_CASE("tree ops run to the end with their bytes on switch, dgx and fat-tree, per-flow equals bulk", "[nccl_tree]") {
  for (const char* spec_text : {"switch:n=12,bw=100Gbps,lat=2us", "dgx:nodes=3,gpus=4,nic_bw=200Gbps",
                                "fattree:n=16,radix=8,tiers=2,bw=100Gbps,lat=1us,oversub=2"}) {
    const Topology topology = build_topology(spec_text);
    Router router(topology);
    const std::size_t n = topology.gpu_count();
    for (const CollectiveOp op : {CollectiveOp::allreduce, CollectiveOp::reduce, CollectiveOp::broadcast}) {
      INFO(spec_text << " " << to_string(op));
      CollectiveSpec spec;
      spec.op = op;
      spec.size = Bytes{std::int64_t{3} << 20};
      spec.algorithm = Algorithm::tree;
      spec.root = Rank{static_cast<std::uint32_t>(n - 1)};
      const CollectiveOutcome bulk = simulate_collective(router, spec);
      spec.bulk = false;
      const CollectiveOutcome flows = simulate_collective(router, spec);
      CHECK(std::llabs(bulk.time.ps() - flows.time.ps()) <= static_cast<std::int64_t>(4 * n));
      // Every rank but the root receives S (Broadcast), sends S (Reduce), or both (AllReduce): (n-1) S a direction.
      const double directions = op == CollectiveOp::allreduce ? 2 : 1;
      const double expected = directions * static_cast<double>(n - 1) * static_cast<double>(spec.size.value);
      CHECK(bulk.stats.bytes_sent == Approx(expected));
      CHECK(flows.stats.bytes_sent == Approx(expected));
      const double reduced =
          op == CollectiveOp::broadcast ? 0 : static_cast<double>(n - 1) * static_cast<double>(spec.size.value);
      CHECK(bulk.stats.bytes_reduced == Approx(reduced));
    }
  }
}

TEST_CASE("auto offers the tree for AllReduce only, as NCCL's tuner, best also for Broadcast and Reduce",
          "[nccl_tree]") {
  const auto has_tree = [](const std::vector<Algorithm>& candidates) {
    return std::find(candidates.begin(), candidates.end(), Algorithm::tree) != candidates.end();
  };
  CHECK(has_tree(candidate_algorithms(CollectiveOp::allreduce, 16, true)));
  for (const CollectiveOp op : {CollectiveOp::broadcast, CollectiveOp::reduce}) {
    CHECK(candidate_algorithms(op, 16, true) == std::vector<Algorithm>{Algorithm::ring});
    CHECK(has_tree(candidate_algorithms(op, 16, true, true)));
  }
}
