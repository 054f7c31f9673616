// Channels that are copies of one another (one GPU per server: every channel's ring crosses the same NIC) are timed
// as one channel with k-fold wire bytes (channel_copies.hpp). The reference here runs every channel's executor on
// one flow model, as the runner did before.
#include <catch2/catch.hpp>

#include <numeric>

#include "syncsim/collectives/collective_executor.hpp"
#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/collectives/lockstep_runner.hpp"
#include "syncsim/collectives/ring_plan.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;

namespace {

struct Reference {
  SimTime time;
  double link_bytes = 0;
  std::uint64_t transfers = 0;
};

// `channels` executors of one ring each (the collective's size split evenly) on the same GPUs, flow by flow where
// they share links.
Reference every_channel(const Topology& topology, const std::vector<std::vector<std::size_t>>& groups, CollectiveOp op,
                        std::int64_t size, std::uint32_t channels) {
  Simulator sim;
  FlowModel flows(sim, topology);
  Router router(topology);
  const RingPlan plan(op, groups.front().size(), Bytes{size / channels});
  std::vector<std::unique_ptr<CollectiveExecutor>> executors;
  for (const std::vector<std::size_t>& gpus : groups) {
    std::vector<NodeId> nodes;
    for (const std::size_t g : gpus) nodes.push_back(topology.gpu(g));
    for (std::uint32_t c = 0; c < channels; ++c) {
      executors.push_back(std::make_unique<CollectiveExecutor>(sim, flows, router, plan, nodes));
    }
  }
  for (auto& executor : executors) executor->start();
  sim.run();
  Reference out;
  for (const auto& executor : executors) {
    REQUIRE(executor->done());
    out.time = std::max(out.time, executor->finish_time());
    out.transfers += executor->stats().transfers;
  }
  for (const LinkTraffic& link : flows.traffic()) out.link_bytes += link.bytes_carried;
  return out;
}

CollectiveOutcome simulated(const Topology& topology, const std::vector<std::vector<std::size_t>>& groups,
                            CollectiveOp op, std::int64_t size, std::uint32_t channels, bool lockstep = false) {
  Router router(topology);
  CollectiveSpec spec;
  spec.op = op;
  spec.size = Bytes{size};
  spec.algorithm = Algorithm::ring;
  spec.channels = channels;
  spec.groups = groups;
  if (lockstep) spec.lockstep_min_transfers = 0;
  return simulate_collective(router, spec);
}

double total_bytes(const CollectiveOutcome& outcome) {
  double total = 0;
  for (const LinkTraffic& link : outcome.links) total += link.bytes_carried;
  return total;
}

}  // namespace

TEST_CASE("identical channels timed as one take what every channel's executor takes", "[channel-copies]") {
  // 64 GPUs under 8 leaves, oversubscribed 4:1. In index order a ring stays under two leaves; interleaved, its
  // neighbours sit under different leaves and its ranks' transfers contend for the uplinks, as do two such groups
  // for each other's, besides every channel's copies for every link.
  const Topology topology = build_topology("fattree:n=64,radix=16,tiers=2,bw=100Gbps,lat=1us,oversub=4");
  std::vector<std::size_t> in_order(16);
  std::iota(in_order.begin(), in_order.end(), std::size_t{0});
  std::vector<std::size_t> first, second;
  for (std::size_t j = 0; j < 4; ++j) {
    for (std::size_t leaf = 0; leaf < 8; ++leaf) (j % 2 == 0 ? first : second).push_back(8 * leaf + j);
  }
  const std::vector<std::vector<std::vector<std::size_t>>> layouts{{in_order}, {first}, {first, second}};
  const auto op = GENERATE(CollectiveOp::allreduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather);
  const std::uint32_t channels = GENERATE(2u, 4u);
  const std::int64_t size = std::int64_t{64} << 20;
  for (const auto& groups : layouts) {
    const Reference reference = every_channel(topology, groups, op, size, channels);
    const CollectiveOutcome outcome = simulated(topology, groups, op, size, channels);
    CHECK(outcome.channels == channels);
    // Equal up to the order of floating-point operations (one flow of k-fold bytes against k flows).
    CHECK(outcome.time.seconds() == Approx(reference.time.seconds()).epsilon(1e-9));
    CHECK(total_bytes(outcome) == Approx(reference.link_bytes).epsilon(1e-12));
    CHECK(outcome.stats.transfers == reference.transfers);
  }
}

TEST_CASE("identical channels in lockstep take what lockstep over every channel takes", "[channel-copies]") {
  // The same fabric and groups, timed in lockstep (lockstep_runner.hpp) with every channel given, against the
  // runner, which gives lockstep one channel per class of copies.
  const Topology fat_tree = build_topology("fattree:n=64,radix=16,tiers=2,bw=100Gbps,lat=1us,oversub=4");
  std::vector<std::size_t> first, second;
  for (std::size_t j = 0; j < 4; ++j) {
    for (std::size_t leaf = 0; leaf < 8; ++leaf) (j % 2 == 0 ? first : second).push_back(8 * leaf + j);
  }
  const auto op = GENERATE(CollectiveOp::allreduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather);
  const std::uint32_t channels = GENERATE(2u, 4u);
  // Half of this ring's hops stay under a leaf and half cross: its ranks' transfers alone take different times,
  // so the offsets lockstep's second pass starts them at differ.
  const std::vector<std::size_t> mixed{0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27};
  const std::int64_t size = GENERATE(std::int64_t{64} << 10, std::int64_t{64} << 20);
  const Topology dgx = build_topology("dgx:nodes=8,gpus=4,nic_bw=100Gbps");
  std::vector<std::vector<std::size_t>> rails(4);
  for (std::size_t g = 0; g < 32; ++g) rails[g % 4].push_back(g);
  for (const auto& [fabric, groups] :
       std::vector<std::pair<const Topology*, std::vector<std::vector<std::size_t>>>>{{&fat_tree, {first}},
                                                                                      {&fat_tree, {first, second}},
                                                                                      {&fat_tree, {mixed}},
                                                                                      {&dgx, {rails[0]}},
                                                                                      {&dgx, rails}}) {
    const Topology& topology = *fabric;
    Router router(topology);
    const RingPlan plan(op, groups.front().size(), Bytes{size / channels});
    std::vector<const CollectivePlan*> plans;
    std::vector<std::vector<NodeId>> gpus;
    for (const std::vector<std::size_t>& group : groups) {
      std::vector<NodeId> nodes;
      for (const std::size_t g : group) nodes.push_back(topology.gpu(g));
      for (std::uint32_t c = 0; c < channels; ++c) {
        plans.push_back(&plan);
        gpus.push_back(nodes);
      }
    }
    const std::optional<LockstepTiming> every = time_lockstep(router, plans, gpus, ExecutorOptions{});
    REQUIRE(every);
    const CollectiveOutcome outcome = simulated(topology, groups, op, size, channels, true);
    CHECK(outcome.time.seconds() == Approx(every->time.seconds()).epsilon(1e-9));
    double bytes = 0;
    for (const LinkTraffic& link : every->links) bytes += link.bytes_carried;
    CHECK(total_bytes(outcome) == Approx(bytes).epsilon(1e-12));
    CHECK(outcome.stats.transfers == every->stats.transfers);
    CHECK(outcome.stats.bulk_steps == every->stats.bulk_steps);
  }
}
