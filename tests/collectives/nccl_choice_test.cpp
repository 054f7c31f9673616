// NCCL's choice between ring and tree at scale, from the model itself (issue: collective library).
//
// System: 64 DGX-style nodes of 8 GPUs (512 ranks), 8 rails of 200 Gbps, NCCL's latency model. A ring pays
// 2(n-1) = 1022 step latencies; a tree about 2 log2(n), so small messages favour the tree. A ring streams every
// byte over every link once at full rate while a tree's interior ranks forward to two children, so large
// messages favour the ring.
#include <catch2/catch.hpp>

#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/topology/topology_spec.hpp"
#include "test_fabrics.hpp"

using namespace syncsim;
using namespace syncsim::test_fabrics;

TEST_CASE("64 nodes: tree beats ring at 8 KiB, ring at least matches tree at 1 GiB, auto follows", "[nccl_choice]") {
  const Topology topology = build_topology("dgx:nodes=64,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps");
  Router router(topology);
  const std::int64_t small = 8 * 1024;
  const std::int64_t large = std::int64_t{1} << 30;

  const CollectiveOutcome ring_small = simulate_nccl(router, small, Algorithm::ring);
  const CollectiveOutcome tree_small = simulate_nccl(router, small, Algorithm::tree);
  CHECK(tree_small.time < ring_small.time);
  const CollectiveOutcome auto_small = simulate_nccl(router, small, std::nullopt);
  CHECK(auto_small.algorithm == Algorithm::tree);
  CHECK(auto_small.time == tree_small.time);

  const CollectiveOutcome ring_large = simulate_nccl(router, large, Algorithm::ring);
  const CollectiveOutcome tree_large = simulate_nccl(router, large, Algorithm::tree);
  CHECK(ring_large.time <= tree_large.time);
  const CollectiveOutcome auto_large = simulate_nccl(router, large, std::nullopt);
  CHECK(auto_large.algorithm == Algorithm::ring);
  CHECK(auto_large.time == ring_large.time);
}
