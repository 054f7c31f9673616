// The executor's bookkeeping: conservation of bytes, reduction cost, concurrent collectives, rank placement.
#include <catch2/catch.hpp>

#include "syncsim/collectives/collective_executor.hpp"
#include "syncsim/collectives/ring_plan.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;

TEST_CASE("bytes are conserved: N ranks x 2(N-1) steps x S/N, in bulk and per flow", "[executor]") {
  const Topology topology = build_topology("switch:n=8,bw=100Gbps,lat=5us");
  Router router(topology);
  const RingPlan plan(CollectiveOp::allreduce, 8, Bytes{8'000'000});
  for (const bool bulk : {true, false}) {
    ExecutorOptions options;
    options.bulk = bulk;
    const auto timing = time_collective(router, plan, options);
    CHECK(timing.stats.bytes_sent == Approx(2.0 * 7 * 8'000'000));
    CHECK(timing.stats.bytes_reduced == Approx(7.0 * 8'000'000));  // reduce-scatter half: N x (N-1) x S/N
    CHECK(timing.stats.transfers == 8 * 2 * 7);
    if (bulk) {
      CHECK(timing.stats.bulk_steps == 14);
      CHECK(timing.stats.flows == 0);
      CHECK(timing.events == 14);  // one event per step for all ranks
    } else {
      CHECK(timing.stats.flows == 8 * 2 * 7);
    }
  }
}

TEST_CASE("a reduction rate adds (N-1) x S/N / rate to an AllReduce", "[executor]") {
  const Topology topology = build_topology("switch:n=4,bw=100Gbps,lat=5us");
  Router router(topology);
  const RingPlan plan(CollectiveOp::allreduce, 4, Bytes{4'000'000});
  ExecutorOptions free_reduce;
  ExecutorOptions costly;
  costly.reduction_rate = parse_bandwidth("500GB/s");
  const SimTime base = time_collective(router, plan, free_reduce).time;
  const SimTime added = SimTime::from_seconds(1e6 / 500e9) * 3;  // 3 reduce-scatter steps of 1 MB
  for (const bool bulk : {true, false}) {
    costly.bulk = bulk;
    CHECK(std::llabs((time_collective(router, plan, costly).time - base - added).ps()) <= 6);
  }
}

TEST_CASE("two collectives on disjoint GPUs of one switch both run at full speed, in bulk", "[executor]") {
  const Topology topology = build_topology("switch:n=8,bw=100Gbps,lat=5us");
  Simulator sim;
  FlowModel flows(sim, topology);
  Router router(topology);
  const RingPlan plan(CollectiveOp::allreduce, 4, Bytes{1 << 24});
  std::vector<NodeId> left, right;
  for (std::size_t g = 0; g < 4; ++g) left.push_back(topology.gpu(g));
  for (std::size_t g = 4; g < 8; ++g) right.push_back(topology.gpu(g));
  CollectiveExecutor a(sim, flows, router, plan, left);
  CollectiveExecutor b(sim, flows, router, plan, right);
  a.start();
  b.start();
  sim.run();
  REQUIRE(a.done());
  REQUIRE(b.done());
  Router alone_router(topology);
  const SimTime alone = time_collective(alone_router, plan).time;
  CHECK(a.finish_time() == alone);
  CHECK(b.finish_time() == alone);
  CHECK(a.stats().bulk_steps == 6);
  CHECK(b.stats().bulk_steps == 6);
}

TEST_CASE("two collectives on the same GPUs share the links and take twice as long", "[executor]") {
  const Topology topology = build_topology("switch:n=4,bw=100Gbps,lat=0s");
  Simulator sim;
  FlowModel flows(sim, topology);
  Router router(topology);
  const RingPlan plan(CollectiveOp::allreduce, 4, Bytes{1 << 24});
  std::vector<NodeId> gpus;
  for (std::size_t g = 0; g < 4; ++g) gpus.push_back(topology.gpu(g));
  CollectiveExecutor a(sim, flows, router, plan, gpus);
  CollectiveExecutor b(sim, flows, router, plan, gpus);
  a.start();
  b.start();  // breaks a's claims at once: both continue flow by flow
  sim.run();
  Router alone_router(topology);
  const SimTime alone = time_collective(alone_router, plan).time;
  CHECK(std::llabs(a.finish_time().ps() - 2 * alone.ps()) <= 12);
  CHECK(std::llabs(b.finish_time().ps() - 2 * alone.ps()) <= 12);
}

TEST_CASE("a plan with more ranks than GPUs is refused", "[executor]") {
  const Topology topology = build_topology("switch:n=4,bw=100Gbps,lat=5us");
  Router router(topology);
  const RingPlan plan(CollectiveOp::allreduce, 8, Bytes{1024});
  CHECK_THROWS_AS(time_collective(router, plan), InputError);
}
