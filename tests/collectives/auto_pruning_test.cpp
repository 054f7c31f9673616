// `auto` skips a candidate whose busiest-link bound already ranks behind the best one simulated (load_bound.hpp):
// the skip must never change the choice. The expected choice is worked out here the long way, by simulating every
// candidate on its own and ranking them as NCCL's tuner does (tree_tuning.hpp); the bound must also never exceed
// what the simulation gives.
#include <catch2/catch.hpp>

#include <vector>

#include "load_bound.hpp"
#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/collectives/ring_plan.hpp"
#include "syncsim/collectives/tree_plan.hpp"
#include "syncsim/collectives/tree_tuning.hpp"
#include "syncsim/topology/topology_spec.hpp"
#include "test_fabrics.hpp"

using namespace syncsim;
using namespace syncsim::test_fabrics;

namespace {

SimTime busiest(const CollectiveOutcome& outcome) {
  SimTime busy;
  for (const LinkTraffic& link : outcome.links) busy = std::max(busy, link.busy_time);
  return busy;
}

// Every ring and tree candidate simulated alone, ranked, the first of the least taken: what auto chose before it
// learned to skip.
CollectiveOutcome exhaustive_choice(Router& router, std::int64_t size, std::size_t nodes, std::size_t ranks) {
  const Protocol protocols[] = {Protocol::ll, Protocol::ll128, Protocol::simple};
  std::vector<CollectiveOutcome> rings;
  for (const Protocol p : protocols) rings.push_back(simulate_nccl(router, size, Algorithm::ring, p));
  SimTime ring_busy = busiest(rings.front());
  for (const CollectiveOutcome& ring : rings) ring_busy = std::min(ring_busy, busiest(ring));
  std::optional<CollectiveOutcome> best;
  SimTime best_rank;
  for (const CollectiveOutcome& ring : rings) {
    if (!best || ring.time < best_rank) {
      best = ring;
      best_rank = ring.time;
    }
  }
  for (const Protocol p : protocols) {
    const CollectiveOutcome tree = simulate_nccl(router, size, Algorithm::tree, p);
    const SimTime rank = tree_ranking_time(tree.time, p, Bytes{size}, nodes, ranks, ring_busy);
    if (rank < best_rank) {
      best = tree;
      best_rank = rank;
    }
  }
  return *best;
}

}  // namespace

TEST_CASE("auto's skipped candidates never change its choice", "[auto_pruning]") {
  struct Case {
    const char* topology;
    std::size_t nodes;
    std::size_t ranks;
  };
  // Sizes from latency-bound (LL wins) to bandwidth-bound (LL skipped), on clusters where the tree or the ring wins.
  const Case cases[] = {{"dgx:nodes=4,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps", 4, 32},
                        {"dgx:nodes=16,gpus=4,nvlink_bw=300GB/s,nic_bw=400Gbps", 16, 64},
                        {"fattree:n=16,radix=8,bw=100Gbps,lat=1us", 16, 16}};
  const std::int64_t sizes[] = {8 * 1024, 1 << 20, 16 << 20, 100'000'000};
  for (const Case& c : cases) {
    const Topology topology = build_topology(c.topology);
    Router router(topology);
    for (const std::int64_t size : sizes) {
      INFO(c.topology << ", " << size << " B");
      const CollectiveOutcome chosen = simulate_nccl(router, size, std::nullopt, std::nullopt);
      const CollectiveOutcome expected = exhaustive_choice(router, size, c.nodes, c.ranks);
      CHECK(chosen.algorithm == expected.algorithm);
      CHECK(chosen.protocol == expected.protocol);
      CHECK(chosen.time == expected.time);
    }
  }
}

TEST_CASE("the busiest-link bound never exceeds the simulated time", "[auto_pruning]") {
  // One channel on 4 DGX nodes, rings and trees under every protocol's efficiency, the executor's time against
  // the bound of the same plan: the flow model never pushes a link past its rate.
  const Topology topology = build_topology("dgx:nodes=4,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps");
  Router router(topology);
  std::vector<NodeId> gpus;
  for (std::size_t g = 0; g < 32; ++g) gpus.push_back(topology.gpu(g));
  for (const Protocol protocol : {Protocol::ll, Protocol::ll128, Protocol::simple}) {
    for (const std::int64_t size : {std::int64_t{1} << 20, std::int64_t{256} << 20}) {
      ExecutorOptions options;
      options.cost = nccl_cost(Algorithm::tree, protocol);
      const RingPlan ring(CollectiveOp::allreduce, 32, Bytes{size});
      TreeOptions tree_options;
      tree_options.pipeline_slices = 8;
      const TreePlan tree(CollectiveOp::allreduce, 32, Bytes{size}, tree_options);
      for (const CollectivePlan* plan :
           {static_cast<const CollectivePlan*>(&ring), static_cast<const CollectivePlan*>(&tree)}) {
        INFO(plan->algorithm() << " " << to_string(protocol) << " " << size << " B");
        const std::vector<const CollectivePlan*> channels{plan};
        const SimTime bound = busiest_link_bound(router, channels, {gpus}, options.cost);
        CHECK(bound > SimTime::zero());
        CHECK(bound <= time_collective(router, *plan, options).time);
      }
    }
  }
}

TEST_CASE("the busiest-link bound is a ring's bandwidth term on a switch", "[auto_pruning]") {
  // switch of 8 at 100 Gbps: every uplink carries 2(n-1)/n S, and the ring takes 2(n-1)(lat + S/(n B)); the bound
  // is the bandwidth part, 2(n-1)/n S/B, to within its deliberate slack.
  const Topology topology = build_topology("switch:n=8,bw=100Gbps,lat=5us");
  Router router(topology);
  std::vector<NodeId> gpus;
  for (std::size_t g = 0; g < 8; ++g) gpus.push_back(topology.gpu(g));
  const std::int64_t size = 800'000'000;
  const RingPlan ring(CollectiveOp::allreduce, 8, Bytes{size});
  const std::vector<const CollectivePlan*> channels{&ring};
  const SimTime bound = busiest_link_bound(router, channels, {gpus}, ExecutorOptions{}.cost);
  const double bandwidth_seconds = 2.0 * 7 / 8 * static_cast<double>(size) / 12.5e9;
  CHECK(bound.seconds() == Approx(bandwidth_seconds).epsilon(1e-5));
  CHECK(bound.seconds() <= bandwidth_seconds);
}
