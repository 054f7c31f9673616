// Collectives where links are shared: oversubscribed fat trees, a competing flow, a multi-node system.
#include <catch2/catch.hpp>

#include <numeric>

#include "syncsim/collectives/collective_executor.hpp"
#include "syncsim/collectives/direct_plan.hpp"
#include "syncsim/collectives/ring_plan.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;

namespace {
SimTime run_ring(const Topology& topology, const std::vector<std::size_t>& gpus, std::int64_t size, bool bulk) {
  Simulator sim;
  FlowModel flows(sim, topology);
  Router router(topology);
  const RingPlan plan(CollectiveOp::allreduce, gpus.size(), Bytes{size});
  std::vector<NodeId> nodes;
  for (const auto g : gpus) nodes.push_back(topology.gpu(g));
  ExecutorOptions options;
  options.bulk = bulk;
  CollectiveExecutor executor(sim, flows, router, plan, nodes, options);
  executor.start();
  sim.run();
  REQUIRE(executor.done());
  return executor.finish_time() - executor.start_time();
}
}  // namespace

TEST_CASE("oversubscription 4: a ring whose neighbours sit under different leaves gets a quarter of the bandwidth",
          "[contention]") {
  // 64 GPUs, radix 16: 8 leaves of 8 GPUs, each leaf with 8 / 4 = 2 uplinks at bw. In index order only one flow
  // per leaf (GPU 7 -> 8, ...) leaves it; interleaved (0, 8, 16, ..., 56, 1, 9, ...) every flow crosses leaves,
  // so 8 flows share each leaf's 2 uplinks: bw / 4 each.
  const Topology topology = build_topology("fattree:n=64,radix=16,tiers=2,bw=100Gbps,lat=1us,oversub=4");
  std::vector<std::size_t> interleaved, in_order(64);
  for (std::size_t j = 0; j < 8; ++j) {
    for (std::size_t leaf = 0; leaf < 8; ++leaf) interleaved.push_back(8 * leaf + j);
  }
  std::iota(in_order.begin(), in_order.end(), 0);
  const std::int64_t size = std::int64_t{1} << 30;
  const double in_order_time = run_ring(topology, in_order, size, true).seconds();
  const double interleaved_time = run_ring(topology, interleaved, size, true).seconds();
  CHECK(in_order_time / interleaved_time == Approx(0.25).epsilon(0.02));
  // Contended steps leave the bulk path for flows; the per-flow path gives the same answer.
  CHECK(run_ring(topology, interleaved, size, false).seconds() == Approx(interleaved_time).epsilon(1e-9));
  // Without oversubscription the interleaved ring runs at full speed.
  const Topology full = build_topology("fattree:n=64,radix=16,tiers=2,bw=100Gbps,lat=1us,oversub=1");
  CHECK(run_ring(full, interleaved, size, true).seconds() == Approx(in_order_time).epsilon(0.02));
}

TEST_CASE("oversubscription limits aggregate traffic, not a single flow", "[contention]") {
  // One GPU per leaf: each leaf sends one flow up, which has an uplink to itself.
  const Topology topology = build_topology("fattree:n=64,radix=16,tiers=2,bw=100Gbps,lat=1us,oversub=4");
  std::vector<std::size_t> one_leaf(8), spread(8);
  std::iota(one_leaf.begin(), one_leaf.end(), 0);
  for (std::size_t i = 0; i < 8; ++i) spread[i] = 8 * i;
  const std::int64_t size = std::int64_t{1} << 30;
  const double local = run_ring(topology, one_leaf, size, true).seconds();
  const double across = run_ring(topology, spread, size, true).seconds();
  CHECK(local / across == Approx(1.0).epsilon(0.01));
}

namespace {
// Starts one extra flow GPU0 -> GPU1 at a given time, in the middle of a collective.
struct Intruder : EventHandler, FlowObserver {
  FlowModel* flows = nullptr;
  const Route* route = nullptr;
  double bytes = 0;
  SimTime finished;
  void on_event(Simulator&, std::uint64_t) override { flows->start(*route, bytes, *this, 0); }
  void on_flow_finished(FlowId, std::uint64_t) override { finished = flows_now(); }
  std::function<SimTime()> flows_now;
};

struct Outcome {
  SimTime collective;
  SimTime intruder;
  ExecutorStats stats;
};

// `plan` (8 ranks) on switch:n=8,bw=100Gbps,lat=5us with the intruder's flow starting at `when`.
Outcome collide(const CollectivePlan& plan, bool bulk, SimTime when, double intruder_bytes) {
  const Topology topology = build_topology("switch:n=8,bw=100Gbps,lat=5us");
  Simulator sim;
  FlowModel flows(sim, topology);
  Router router(topology);
  std::vector<NodeId> gpus;
  for (std::size_t g = 0; g < 8; ++g) gpus.push_back(topology.gpu(g));
  ExecutorOptions options;
  options.bulk = bulk;
  CollectiveExecutor executor(sim, flows, router, plan, gpus, options);
  Intruder intruder;
  intruder.flows = &flows;
  intruder.route = &router.gpu_route(0, 1);
  intruder.bytes = intruder_bytes;
  intruder.flows_now = [&sim] { return sim.now(); };
  sim.schedule_at(when, intruder);
  executor.start();
  sim.run();
  REQUIRE(executor.done());
  return {executor.finish_time(), intruder.finished, executor.stats()};
}
}  // namespace

TEST_CASE("a flow that cuts into a bulk step breaks its claim and shares exactly as per-flow", "[contention]") {
  // The allreduce of 64 MiB takes 14 steps of about 10 us + 671 us; start the intruder inside step 3's drain,
  // inside a latency tail, and exactly on a step boundary.
  const RingPlan ring(CollectiveOp::allreduce, 8, Bytes{std::int64_t{1} << 26});
  const SimTime alone = collide(ring, false, SimTime::from_seconds(1.0), 1e6).collective;  // intruder comes after
  for (const SimTime when : {SimTime::from_us(2100), SimTime::from_ps(std::int64_t{3} * 681'110'000 + 681'000'000),
                             SimTime::zero(), SimTime::from_us(681.1)}) {
    for (const double bytes : {1e6, 5e7}) {
      const Outcome per_flow = collide(ring, false, when, bytes);
      const Outcome bulk = collide(ring, true, when, bytes);
      INFO("intruder at " << when.ps() << " ps, " << bytes << " bytes");
      CHECK(std::llabs(bulk.collective.ps() - per_flow.collective.ps()) <= 30);
      CHECK(std::llabs(bulk.intruder.ps() - per_flow.intruder.ps()) <= 30);
      // The intruder really slowed the collective down compared with running alone.
      CHECK(per_flow.collective > alone);
    }
  }
}

TEST_CASE("a flow that cuts into a bulk all-to-all step: the rest runs as flows, exactly as per-flow",
          "[contention][alltoall]") {
  // 64 MiB: the one step drains for 7/8 x 64 MiB / 12.5 GB/s = 4.70 ms, then 10 us of latency. The intruder comes
  // mid-drain, just before the drain ends and inside the latency tail.
  const DirectPlan alltoall(CollectiveOp::alltoall, 8, Bytes{std::int64_t{1} << 26});
  const Outcome alone = collide(alltoall, true, SimTime::from_seconds(1.0), 5e6);
  CHECK(alone.stats.bulk_steps == 1);
  for (const SimTime when : {SimTime::from_us(1000), SimTime::from_us(4696), SimTime::from_us(4702)}) {
    const Outcome per_flow = collide(alltoall, false, when, 5e6);
    const Outcome bulk = collide(alltoall, true, when, 5e6);
    INFO("intruder at " << when.us() << " us");
    CHECK(bulk.stats.bulk_steps == 0);  // the claim broke
    CHECK(bulk.stats.transfers == 56);
    CHECK(std::llabs(bulk.collective.ps() - per_flow.collective.ps()) <= 2);
    CHECK(std::llabs(bulk.intruder.ps() - per_flow.intruder.ps()) <= 2);
    CHECK(per_flow.collective >= alone.collective);
  }
}

TEST_CASE("one ring across two DGX-style nodes: one NIC at best, D-mod-k by leaf port keeps its two flows apart",
          "[contention]") {
  // Ring order 0..15 leaves node 0 from GPU 7 (rail 7) for GPU 8 (rail 0 of node 1), and node 1 from GPU 15 for
  // GPU 0: both flows go leaf7 -> spine -> leaf0. D-mod-k picks the spine by the destination's port on its leaf
  // (GPU 8 is port 1 of leaf0, GPU 0 port 0), so they take spines 1 and 0 and each gets a whole 200 Gbps link: busbw
  // 25 GB/s, one NIC's, not 8 rails' 200 GB/s. (Numbered by GPU index, 8 and 0 were both even and shared spine 0:
  // 12.5 GB/s. Multi-channel rings that keep inter-node traffic on its own rail lift the one-NIC limit.)
  const Topology topology = build_topology("dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps,net_lat=2us");
  Router router(topology);
  const std::int64_t size = std::int64_t{1} << 30;
  const RingPlan plan(CollectiveOp::allreduce, 16, Bytes{size});
  const auto bulk = time_collective(router, plan);
  ExecutorOptions per_flow;
  per_flow.bulk = false;
  CHECK(time_collective(router, plan, per_flow).time == bulk.time);
  const auto bw = bus_bandwidth(CollectiveOp::allreduce, 16, Bytes{size}, bulk.time);
  CHECK(bw.busbw.gb_per_s() == Approx(25.0).epsilon(0.01));
  // With one rail both nodes' traffic crosses the single leaf in opposite directions: nothing shared, one NIC each.
  const Topology one_rail = build_topology("dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps,rails=1");
  Router one_rail_router(one_rail);
  const auto bw_one_rail =
      bus_bandwidth(CollectiveOp::allreduce, 16, Bytes{size}, time_collective(one_rail_router, plan).time);
  CHECK(bw_one_rail.busbw.gb_per_s() == Approx(25.0).epsilon(0.01));
}
