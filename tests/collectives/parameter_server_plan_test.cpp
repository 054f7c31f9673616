// The synchronous parameter-server plan: data it moves (replay), bytes it sends, and its closed form on a switch
// (parameter_server_plan.hpp).
//
// On switch:n=M,bw=B,lat=L a route crosses two links, so alpha = 2L. Tested: with k dedicated servers,
//   T = 2 (2L + max(N, k) S / (k B)) + N S/k / apply_rate,
// and with k servers colocated on the N workers, T = 2 (2L + (N-1) S / (k B)) + (N-1) S/k / apply_rate. Every
// rank runs 2 steps and each rounds its transfer time to a whole picosecond.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "plan_replay.hpp"
#include "syncsim/collectives/collective_executor.hpp"
#include "syncsim/collectives/direct_plan.hpp"
#include "syncsim/collectives/parameter_server_plan.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;

namespace {
constexpr double kAlpha = 10e-6;       // 2 x lat=5us
constexpr double kBandwidth = 12.5e9;  // 100 Gbps
constexpr std::int64_t kTolerancePs = 4;

std::int64_t to_ps(double seconds) {
  return std::llround(seconds * 1e12);
}

double dedicated_closed_form(std::size_t n, std::size_t k, double size) {
  const double nd = static_cast<double>(n), kd = static_cast<double>(k);
  return 2 * (kAlpha + std::max(nd, kd) * size / (kd * kBandwidth));
}

double colocated_closed_form(std::size_t n, std::size_t k, double size) {
  return 2 * (kAlpha + static_cast<double>(n - 1) * size / (static_cast<double>(k) * kBandwidth));
}

SimTime run_plan(const ParameterServerPlan& plan, ExecutorOptions options = {}) {
  const Topology topology = build_topology(fmt::format("switch:n={},bw=100Gbps,lat=5us", plan.rank_count()));
  Router router(topology);
  return time_collective(router, plan, options).time;
}
}  // namespace

TEST_CASE("parameter server replay: every worker ends with every worker's contribution", "[ps]") {
  using namespace plan_replay;
  for (const auto placement : {PsPlacement::dedicated, PsPlacement::colocated}) {
    for (const std::size_t n : {1, 2, 3, 5, 8}) {
      for (const std::size_t k : {1, 2, 3, 4}) {
        if (placement == PsPlacement::colocated && k > n) continue;
        const ParameterServerPlan plan(n, k, Bytes{1 << 20}, placement);
        INFO("placement=" << static_cast<int>(placement) << " N=" << n << " k=" << k);
        auto initial = own_data(plan.rank_count(), k);
        for (std::size_t r = n; r < plan.rank_count(); ++r) {
          for (auto& piece : initial[r]) piece.reset();  // a dedicated server contributes nothing
        }
        const auto result = replay(plan, k, initial);
        for (std::size_t r = 0; r < n; ++r) {
          for (std::size_t j = 0; j < k; ++j) CHECK(result[r][j] == everyone(n));
        }
        for (std::uint32_t j = 0; j < k; ++j) CHECK(result[plan.server_rank(j).value()][j] == everyone(n));
      }
    }
  }
}

TEST_CASE("parameter server bytes: every send is received, dedicated 2 N S, colocated 2 (N-1) S", "[ps]") {
  for (const auto placement : {PsPlacement::dedicated, PsPlacement::colocated}) {
    for (const std::size_t n : {1, 2, 4, 7}) {
      for (const std::size_t k : {1, 2, 4}) {
        if (placement == PsPlacement::colocated && k > n) continue;
        const double size = 1'000'003;
        const ParameterServerPlan plan(n, k, Bytes{1'000'003}, placement);
        INFO("placement=" << static_cast<int>(placement) << " N=" << n << " k=" << k);
        CHECK(plan.op() == CollectiveOp::allreduce);
        CHECK(plan.algorithm() == "parameter_server");
        CHECK(plan.rank_count() == (placement == PsPlacement::dedicated ? n + k : n));
        std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> sent, expected;  // (dst, step) -> count
        double bytes = 0, reduced = 0;
        PlanStep step;
        for (std::uint32_t r = 0; r < plan.rank_count(); ++r) {
          for (std::uint32_t s = 0; s < plan.step_count(Rank{r}); ++s) {
            plan.step(Rank{r}, s, step);
            for (const auto& send : step.sends) {
              CHECK(send.dst != Rank{r});
              ++sent[{send.dst.value(), send.dst_step}];
              bytes += send.bytes;
            }
            if (step.recv_count > 0) expected[{r, s}] = step.recv_count;
            reduced += step.reduce_bytes;
          }
        }
        CHECK(sent == expected);
        const double peers = static_cast<double>(placement == PsPlacement::dedicated ? n : n - 1);
        CHECK(bytes == Approx(2 * peers * size));
        CHECK(reduced == Approx(peers * size));
        if (n > 1) {
          const Topology topology = build_topology(fmt::format("switch:n={},bw=100Gbps,lat=5us", plan.rank_count()));
          Router router(topology);
          const auto timing = time_collective(router, plan);
          CHECK(timing.stats.bytes_sent == Approx(bytes));
          CHECK(timing.stats.bytes_reduced == Approx(reduced));
        }
      }
    }
  }
}

TEST_CASE("dedicated servers on a switch: 2 (alpha + max(N, k) S/(k B)), linear in N, divided by k", "[ps]") {
  const double size = 1 << 26;
  std::map<std::pair<std::size_t, std::size_t>, double> transfer;  // (N, k) -> T - 2 alpha, seconds
  for (const std::size_t n : {2, 4, 8, 16}) {
    for (const std::size_t k : {1, 2, 4}) {
      const ParameterServerPlan plan(n, k, Bytes{1 << 26}, PsPlacement::dedicated);
      const SimTime t = run_plan(plan);
      INFO("N=" << n << " k=" << k);
      CHECK(std::llabs(t.ps() - to_ps(dedicated_closed_form(n, k, size))) <= kTolerancePs);
      transfer[{n, k}] = t.seconds() - 2 * kAlpha;
    }
  }
  // One server: its NIC carries 2 N S, so the transfer term grows linearly with N.
  for (const std::size_t n : {4, 8, 16}) {
    CHECK(transfer[{n, 1}] == Approx(static_cast<double>(n) / 2 * transfer[{2, 1}]).epsilon(1e-9));
  }
  // k shards divide it by k while the servers are the bottleneck (N >= k).
  for (const std::size_t n : {4, 8, 16}) {
    for (const std::size_t k : {2, 4}) {
      CHECK(transfer[{n, k}] == Approx(transfer[{n, 1}] / static_cast<double>(k)).epsilon(1e-9));
    }
  }
}

TEST_CASE("a server's apply cost adds N S/k / reduction_rate", "[ps]") {
  const double size = 8'000'000;
  ExecutorOptions costly;
  costly.reduction_rate = parse_bandwidth("100GB/s");
  for (const std::size_t k : {1, 2, 4}) {
    const std::size_t n = 8;
    const ParameterServerPlan plan(n, k, Bytes{8'000'000}, PsPlacement::dedicated);
    const double apply = static_cast<double>(n) * size / static_cast<double>(k) / 100e9;
    INFO("k=" << k);
    CHECK(std::llabs(run_plan(plan, costly).ps() - to_ps(dedicated_closed_form(n, k, size) + apply)) <= kTolerancePs);
  }
  const ParameterServerPlan colocated(8, 2, Bytes{8'000'000}, PsPlacement::colocated);
  CHECK(std::llabs(run_plan(colocated, costly).ps() -
                   to_ps(colocated_closed_form(8, 2, size) + 7 * size / 2 / 100e9)) <= kTolerancePs);
}

TEST_CASE("colocated servers on switch:n=N: 2 (alpha + (N-1) S/(k B)), k = N is the direct AllReduce", "[ps]") {
  const double size = 1 << 24;
  for (const std::size_t n : {2, 3, 4, 8, 16}) {
    for (const std::size_t k : {1, 2, 4, 16}) {
      if (k > n) continue;
      const ParameterServerPlan plan(n, k, Bytes{1 << 24}, PsPlacement::colocated);
      INFO("N=" << n << " k=" << k);
      CHECK(std::llabs(run_plan(plan).ps() - to_ps(colocated_closed_form(n, k, size))) <= kTolerancePs);
    }
    const Topology topology = build_topology(fmt::format("switch:n={},bw=100Gbps,lat=5us", n));
    Router router(topology);
    const DirectPlan direct(CollectiveOp::allreduce, n, Bytes{1 << 24});
    const ParameterServerPlan everyone_serves(n, n, Bytes{1 << 24}, PsPlacement::colocated);
    CHECK(std::llabs((time_collective(router, everyone_serves).time - time_collective(router, direct).time).ps()) <=
          kTolerancePs);
  }
  {  // one worker serving itself: nothing crosses the network
    const Topology topology = build_topology("switch:n=2,bw=100Gbps,lat=5us");
    Router router(topology);
    const ParameterServerPlan alone(1, 1, Bytes{1 << 24}, PsPlacement::colocated);
    CHECK(time_collective(router, alone).time == SimTime::zero());
  }
}

TEST_CASE("dedicated servers may sit on any node the caller picks", "[ps]") {
  // Workers on GPUs 4..7, the server on GPU 0: same time as the index-order mapping.
  const Topology topology = build_topology("switch:n=8,bw=100Gbps,lat=5us");
  Simulator sim;
  FlowModel flows(sim, topology);
  Router router(topology);
  const ParameterServerPlan plan(4, 1, Bytes{1 << 24}, PsPlacement::dedicated);
  std::vector<NodeId> nodes{topology.gpu(4), topology.gpu(5), topology.gpu(6), topology.gpu(7), topology.gpu(0)};
  CollectiveExecutor executor(sim, flows, router, plan, nodes);
  executor.start();
  sim.run();
  REQUIRE(executor.done());
  CHECK(std::llabs((executor.finish_time() - executor.start_time()).ps() -
                   to_ps(dedicated_closed_form(4, 1, 1 << 24))) <= kTolerancePs);
}

TEST_CASE("parameter server bad input", "[ps]") {
  CHECK_THROWS_AS(ParameterServerPlan(0, 1, Bytes{8}, PsPlacement::dedicated), InputError);
  CHECK_THROWS_AS(ParameterServerPlan(0, 1, Bytes{8}, PsPlacement::colocated), InputError);
  CHECK_THROWS_AS(ParameterServerPlan(4, 0, Bytes{8}, PsPlacement::dedicated), InputError);
  CHECK_THROWS_AS(ParameterServerPlan(4, 0, Bytes{8}, PsPlacement::colocated), InputError);
  CHECK_THROWS_AS(ParameterServerPlan(2, 3, Bytes{8}, PsPlacement::colocated), InputError);
  CHECK_THROWS_AS(ParameterServerPlan(2, 1, Bytes{-1}, PsPlacement::dedicated), InputError);
  CHECK_NOTHROW(ParameterServerPlan(2, 3, Bytes{8}, PsPlacement::dedicated));
}
