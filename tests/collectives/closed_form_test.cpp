// Uncontended collectives against their alpha-beta closed forms (docs/architecture.md §4, ring_plan.hpp).
//
// On switch:n=N,bw=B,lat=L every route GPU -> switch -> GPU crosses two links, so alpha = 2L, and a ring
// AllReduce of S bytes takes 2(N-1) (2L + S/(N B)). Each step rounds its transfer time to a whole picosecond, so
// the simulated total may differ from the exact value by at most one picosecond per step.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cmath>

#include "syncsim/collectives/collective_executor.hpp"
#include "syncsim/collectives/ring_plan.hpp"
#include "syncsim/topology/topology_spec.hpp"
#include "test_fabrics.hpp"

using namespace syncsim;
using namespace syncsim::test_fabrics;

namespace {
SimTime simulate(Router& router, CollectiveOp op, std::size_t n, std::int64_t size, bool bulk = true,
                 std::uint32_t slices = 1) {
  RingOptions options;
  options.pipeline_slices = slices;
  const RingPlan plan(op, n, Bytes{size}, options);
  ExecutorOptions executor;
  executor.bulk = bulk;
  return time_collective(router, plan, executor).time;
}
}  // namespace

TEST_CASE("ring AllReduce on a switch: 2(N-1)(2L + S/(N B)) for N = 2..4096, S = 8 B..8 GiB", "[closed_form]") {
  for (const std::size_t n : {2, 3, 4, 7, 8, 16, 100, 256, 1024, 4096}) {
    const Topology topology = build_topology(fmt::format("switch:n={},bw=100Gbps,lat=5us", n));
    Router router(topology);
    for (const std::int64_t size :
         {std::int64_t{8}, std::int64_t{4096}, std::int64_t{1'000'003}, std::int64_t{1} << 30, std::int64_t{8} << 30}) {
      const double steps = 2.0 * static_cast<double>(n - 1);
      const double expected =
          steps * (2 * kLatency + static_cast<double>(size) / (static_cast<double>(n) * kBandwidth));
      const SimTime t = simulate(router, CollectiveOp::allreduce, n, size);
      INFO("N=" << n << " S=" << size);
      CHECK(std::llabs(t.ps() - to_ps(expected)) <= static_cast<std::int64_t>(steps));
    }
  }
}

TEST_CASE("ring AllReduce on a ring topology: one hop per step, 2(N-1)(L + S/(N B))", "[closed_form]") {
  for (const std::size_t n : {2, 3, 8, 64, 1024}) {
    const Topology topology = build_topology(fmt::format("ring:n={},bw=100Gbps,lat=5us", n));
    Router router(topology);
    for (const std::int64_t size : {std::int64_t{8}, std::int64_t{1} << 20, std::int64_t{8} << 30}) {
      const double steps = 2.0 * static_cast<double>(n - 1);
      const double expected = steps * (kLatency + static_cast<double>(size) / (static_cast<double>(n) * kBandwidth));
      INFO("N=" << n << " S=" << size);
      CHECK(std::llabs(simulate(router, CollectiveOp::allreduce, n, size).ps() - to_ps(expected)) <=
            static_cast<std::int64_t>(steps));
    }
  }
}

TEST_CASE("for large messages a ring AllReduce's busbw equals the link bandwidth", "[closed_form]") {
  const Topology topology = build_topology("switch:n=8,bw=100Gbps,lat=5us");
  Router router(topology);
  const std::int64_t size = std::int64_t{8} << 30;
  const SimTime t = simulate(router, CollectiveOp::allreduce, 8, size);
  const auto bw = bus_bandwidth(CollectiveOp::allreduce, 8, Bytes{size}, t);
  CHECK(bw.busbw.bytes_per_second == Approx(kBandwidth).epsilon(1e-3));
  CHECK(bw.busbw.bytes_per_second < kBandwidth);
}

TEST_CASE("ReduceScatter and AllGather: (N-1)(2L + S/(N B))", "[closed_form]") {
  const std::size_t n = 16;
  const Topology topology = build_topology("switch:n=16,bw=100Gbps,lat=5us");
  Router router(topology);
  const std::int64_t size = std::int64_t{1} << 28;
  const double expected = 15 * (2 * kLatency + static_cast<double>(size) / (16 * kBandwidth));
  CHECK(std::llabs(simulate(router, CollectiveOp::reduce_scatter, n, size).ps() - to_ps(expected)) <= 15);
  CHECK(std::llabs(simulate(router, CollectiveOp::all_gather, n, size).ps() - to_ps(expected)) <= 15);
}

TEST_CASE("pipelined ring broadcast: (N-1) 2L + (N-2+k) S/(k B)", "[closed_form]") {
  // The root sends its k slices back to back; each hop forwards slice j as soon as it arrived and the previous
  // slice has left, so the latency is paid once per hop and the bytes stream: the last slice reaches the end of
  // the chain after N-1 latencies and N-2+k slice times.
  const std::size_t n = 8;
  const Topology topology = build_topology("switch:n=8,bw=100Gbps,lat=5us");
  Router router(topology);
  const std::int64_t size = std::int64_t{1} << 26;
  for (const std::uint32_t k : {1u, 4u, 64u}) {
    const double steps = static_cast<double>(n - 2 + k);
    const double expected =
        static_cast<double>(n - 1) * 2 * kLatency + steps * static_cast<double>(size) / (k * kBandwidth);
    INFO("k=" << k);
    CHECK(std::llabs(simulate(router, CollectiveOp::broadcast, n, size, true, k).ps() - to_ps(expected)) <=
          static_cast<std::int64_t>(steps));
  }
}

TEST_CASE("the bulk path equals the per-flow path", "[closed_form]") {
  for (const std::size_t n : {2, 5, 16, 64}) {
    const Topology topology = build_topology(fmt::format("switch:n={},bw=100Gbps,lat=5us", n));
    Router router(topology);
    for (const std::int64_t size : {std::int64_t{8}, std::int64_t{1} << 20, std::int64_t{1} << 30}) {
      for (auto op : {CollectiveOp::allreduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather}) {
        const SimTime bulk = simulate(router, op, n, size, true);
        const SimTime per_flow = simulate(router, op, n, size, false);
        INFO("N=" << n << " S=" << size << " op=" << to_string(op));
        CHECK(std::llabs(bulk.ps() - per_flow.ps()) <= static_cast<std::int64_t>(2 * n));
      }
    }
  }
}
