// The algorithms' simulated times against their alpha-beta closed forms (the cost lines of each plan's header),
// and the executor's bulk path against its per-flow path.
//
// alpha = a route's latency, B its bottleneck bandwidth, S the size, n the ranks. On switch:n=N,bw=100Gbps,lat=5us
// a route crosses two links: alpha = 10 us, B = 12.5 GB/s. On mesh:n=N,... every pair has its own link: alpha = 5 us,
// and no two transfers of a plan here ever share a link. Each transfer rounds to a whole picosecond, so a result
// may differ from the exact value by up to one picosecond per transfer on the critical path.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <memory>
#include <vector>

#include "syncsim/collectives/collective_executor.hpp"
#include "syncsim/collectives/direct_plan.hpp"
#include "syncsim/collectives/halving_doubling_plan.hpp"
#include "syncsim/collectives/hierarchical_plan.hpp"
#include "syncsim/collectives/tree_plan.hpp"
#include "syncsim/topology/topology_spec.hpp"
#include "test_fabrics.hpp"

using namespace syncsim;
using namespace syncsim::test_fabrics;

namespace {
SimTime simulate(Router& router, const CollectivePlan& plan, bool bulk = true) {
  ExecutorOptions options;
  options.bulk = bulk;
  return time_collective(router, plan, options).time;
}

// |simulated - expected| <= one picosecond per transfer on the critical path.
void check_close(SimTime simulated, double expected_seconds, double transfers) {
  INFO("simulated " << simulated.ps() << " ps, expected " << to_ps(expected_seconds) << " ps");
  CHECK(std::llabs(simulated.ps() - to_ps(expected_seconds)) <= static_cast<std::int64_t>(transfers));
}

double log2_of(std::size_t n) {
  return static_cast<double>(std::countr_zero(std::bit_floor(n)));
}
}  // namespace

TEST_CASE(
    "pipelined tree on a full mesh, up and down streams apart: AllReduce 2D alpha + (2D+k-1) S/(kB), "
    "Reduce/Broadcast D alpha + (D+k-1) S/(kB)",
    "[closed_form][tree_plan]") {
  const double size = 1 << 24;
  for (const std::size_t n : {2, 3, 5, 8, 13, 16, 32}) {
    const Topology topology = build_topology(fmt::format("mesh:n={},bw=100Gbps,lat=5us", n));
    Router router(topology);
    // Every rank its own node: D = floor(log2(n-1)) + 1. 4 nodes of 4 GPUs: the chains make D = 5 with the TREE
    // pattern and 6 with BALANCED_TREE (tree_plan_test).
    std::vector<std::pair<std::vector<std::vector<Rank>>, TreePattern>> layouts{{{}, TreePattern::tree}};
    if (n == 16) {
      std::vector<std::vector<Rank>> four(4);
      for (std::uint32_t r = 0; r < 16; ++r) four[r / 4].push_back(Rank{r});
      layouts.emplace_back(four, TreePattern::tree);
      layouts.emplace_back(four, TreePattern::balanced_tree);
    }
    for (const auto& [hosts, pattern] : layouts) {
      const double depth = hosts.empty() ? log2_of(n - 1) + 1 : pattern == TreePattern::tree ? 5 : 6;
      for (const std::uint32_t k : {1u, 2u, 3u, 4u, 16u, 17u}) {
        const double beta = size / (k * kBandwidth);
        for (const std::uint32_t which : {0u, 1u}) {
          TreeOptions options;
          options.pipeline_slices = k;
          options.tree = which;
          options.hosts = hosts;
          options.pattern = pattern;
          options.root = Rank{static_cast<std::uint32_t>(n / 2)};
          INFO("n=" << n << " k=" << k << " tree " << which << " nodes " << hosts.size());
          const TreePlan allreduce(CollectiveOp::allreduce, n, Bytes{1 << 24}, options);
          REQUIRE(allreduce.depth() == static_cast<std::uint32_t>(depth));
          check_close(simulate(router, allreduce), 2 * depth * kLatency + (2 * depth + k - 1) * beta,
                      2 * depth + 2 * k);
          for (auto op : {CollectiveOp::reduce, CollectiveOp::broadcast}) {
            const TreePlan plan(op, n, Bytes{1 << 24}, options);
            REQUIRE(plan.depth() == static_cast<std::uint32_t>(depth));
            check_close(simulate(router, plan), depth * kLatency + (depth + k - 1) * beta, depth + k);
          }
        }
      }
    }
  }
}

TEST_CASE("halving-doubling on a switch, n = 2^L: AllReduce 2L alpha + 2(n-1)/n S/B", "[closed_form]") {
  const double alpha = 2 * kLatency;
  for (const std::size_t n : {2, 4, 8, 64, 1024}) {
    const Topology topology = build_topology(fmt::format("switch:n={},bw=100Gbps,lat=5us", n));
    Router router(topology);
    const double levels = log2_of(n);
    const double share = static_cast<double>(n - 1) / static_cast<double>(n);
    for (const std::int64_t size : {std::int64_t{8}, std::int64_t{1'000'003}, std::int64_t{1} << 30}) {
      const double s = static_cast<double>(size);
      INFO("n=" << n << " S=" << size);
      check_close(simulate(router, HalvingDoublingPlan(CollectiveOp::allreduce, n, Bytes{size})),
                  2 * levels * alpha + 2 * share * s / kBandwidth, 2 * levels);
      for (auto op : {CollectiveOp::reduce_scatter, CollectiveOp::all_gather}) {
        check_close(simulate(router, HalvingDoublingPlan(op, n, Bytes{size})), levels * alpha + share * s / kBandwidth,
                    levels);
      }
    }
  }
}

TEST_CASE("folded halving-doubling on a full mesh: 2(L+1) alpha + (2 + 2(m-1)/m) S/B", "[closed_form]") {
  for (const std::size_t n : {3, 5, 6, 7, 12, 24}) {
    const Topology topology = build_topology(fmt::format("mesh:n={},bw=100Gbps,lat=5us", n));
    Router router(topology);
    const double levels = log2_of(n);
    const double m = std::exp2(levels);
    const double size = 1 << 26;
    INFO("n=" << n);
    check_close(simulate(router, HalvingDoublingPlan(CollectiveOp::allreduce, n, Bytes{1 << 26})),
                2 * (levels + 1) * kLatency + (2 + 2 * (m - 1) / m) * size / kBandwidth, 2 * (levels + 1));
  }
}

TEST_CASE("direct on a switch: each step alpha + (n-1) S/(n B), Broadcast/Reduce alpha + (n-1) S/B", "[closed_form]") {
  const double alpha = 2 * kLatency;
  for (const std::size_t n : {2, 3, 5, 8, 16}) {
    const Topology topology = build_topology(fmt::format("switch:n={},bw=100Gbps,lat=5us", n));
    Router router(topology);
    const double size = 1 << 24;
    const double others = static_cast<double>(n - 1);
    const double step = alpha + others * size / (static_cast<double>(n) * kBandwidth);
    INFO("n=" << n);
    check_close(simulate(router, DirectPlan(CollectiveOp::allreduce, n, Bytes{1 << 24})), 2 * step, 2);
    check_close(simulate(router, DirectPlan(CollectiveOp::reduce_scatter, n, Bytes{1 << 24})), step, 1);
    check_close(simulate(router, DirectPlan(CollectiveOp::all_gather, n, Bytes{1 << 24})), step, 1);
    for (auto op : {CollectiveOp::broadcast, CollectiveOp::reduce}) {
      check_close(simulate(router, DirectPlan(op, n, Bytes{1 << 24}, Rank{1})), alpha + others * size / kBandwidth, 1);
    }
  }
}

TEST_CASE("hierarchical on DGX servers: 2(g-1)(a_intra + S/(g B_intra)) + 2(h-1)(a_inter + S/(g h B_inter))",
          "[closed_form][hierarchical]") {
  for (const auto& [h, g] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{{2, 8}, {4, 4}, {8, 2}, {3, 1}}) {
    const Topology topology = build_topology(fmt::format(
        "dgx:nodes={},gpus={},nvlink_bw=300GB/s,nvlink_lat=700ns,nic_bw=200Gbps,net_lat=2us,pcie_bw=64GB/s", h, g));
    Router router(topology);
    std::vector<std::vector<Rank>> hosts(h);
    for (std::uint32_t j = 0; j < h; ++j) {
      for (std::uint32_t i = 0; i < g; ++i) hosts[j].push_back(Rank{j * g + i});
    }
    // Inside a server GPU -> NVSwitch -> GPU; between servers GPU -> NIC -> rail leaf -> NIC -> GPU.
    const double a_intra = 2 * 700e-9;
    const double b_intra = 300e9;
    const double a_inter = 2 * 2e-6;
    const double b_inter = 25e9;  // the NIC, below PCIe's 64 GB/s
    if (g > 1) {
      const Route& intra = router.route(topology.gpu(0), topology.gpu(1));
      REQUIRE(intra.latency.ps() == to_ps(a_intra));
      REQUIRE(intra.bottleneck.bytes_per_second == Approx(b_intra));
    }
    const Route& inter = router.route(topology.gpu(0), topology.gpu(g));
    REQUIRE(inter.latency.ps() == to_ps(a_inter));
    REQUIRE(inter.bottleneck.bytes_per_second == Approx(b_inter));
    for (const std::int64_t size : {std::int64_t{4096}, std::int64_t{1} << 30}) {
      const double s = static_cast<double>(size);
      const double expected =
          2 * (g - 1) * (a_intra + s / (g * b_intra)) + 2 * (h - 1) * (a_inter + s / (g * h * b_inter));
      const HierarchicalPlan plan(CollectiveOp::allreduce, std::size_t{h} * g, Bytes{size}, hosts);
      INFO("h=" << h << " g=" << g << " S=" << size);
      check_close(simulate(router, plan), expected, plan.step_count(Rank{0}));
    }
  }
}

TEST_CASE("the bulk path equals the per-flow path for the uniform plans", "[closed_form]") {
  for (const std::size_t n : {2, 8, 32}) {
    const Topology topology = build_topology(fmt::format("switch:n={},bw=100Gbps,lat=5us", n));
    Router router(topology);
    for (const std::int64_t size : {std::int64_t{8}, std::int64_t{1} << 20, std::int64_t{1} << 30}) {
      for (auto op : {CollectiveOp::allreduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather}) {
        const HalvingDoublingPlan plan(op, n, Bytes{size});
        const CollectiveTiming bulk = time_collective(router, plan);
        INFO("n=" << n << " S=" << size << " op=" << to_string(op));
        CHECK(bulk.stats.bulk_steps == plan.step_count(Rank{0}));
        CHECK(std::llabs(bulk.time.ps() - simulate(router, plan, false).ps()) <= static_cast<std::int64_t>(2 * n));
      }
    }
  }
  const Topology dgx = build_topology("dgx:nodes=4,gpus=4");
  Router router(dgx);
  std::vector<std::vector<Rank>> hosts(4);
  for (std::uint32_t j = 0; j < 4; ++j) {
    for (std::uint32_t i = 0; i < 4; ++i) hosts[j].push_back(Rank{j * 4 + i});
  }
  const HierarchicalPlan plan(CollectiveOp::allreduce, 16, Bytes{std::int64_t{1} << 28}, hosts);
  const CollectiveTiming bulk = time_collective(router, plan);
  CHECK(bulk.stats.bulk_steps == plan.step_count(Rank{0}));
  CHECK(std::llabs(bulk.time.ps() - simulate(router, plan, false).ps()) <= 32);
}

TEST_CASE("every plan runs to the end on a shared switch, bulk and per-flow alike, sending its plan's bytes",
          "[closed_form]") {
  // Contention (a tree rank's two children share its downlink; direct's n-1 flows share each link) changes the
  // times but must not stall a plan: time_collective asserts that every rank finished.
  for (const std::size_t n : {3, 6, 12}) {
    const Topology topology = build_topology(fmt::format("switch:n={},bw=100Gbps,lat=5us", n));
    Router router(topology);
    const Bytes size{std::int64_t{3} << 22};
    std::vector<std::unique_ptr<CollectivePlan>> plans;
    for (const std::uint32_t which : {0u, 1u}) {
      TreeOptions options;
      options.tree = which;
      options.pipeline_slices = 4;
      options.root = Rank{2};
      for (auto op : {CollectiveOp::allreduce, CollectiveOp::reduce, CollectiveOp::broadcast}) {
        plans.push_back(std::make_unique<TreePlan>(op, n, size, options));
      }
    }
    plans.push_back(std::make_unique<HalvingDoublingPlan>(CollectiveOp::allreduce, n, size));
    plans.push_back(std::make_unique<DirectPlan>(CollectiveOp::allreduce, n, size));
    std::vector<std::vector<Rank>> hosts(3);
    for (std::uint32_t r = 0; r < n; ++r) hosts[r / (n / 3)].push_back(Rank{r});
    plans.push_back(std::make_unique<HierarchicalPlan>(CollectiveOp::allreduce, n, size, hosts));
    for (const auto& plan : plans) {
      INFO(plan->algorithm() << " " << to_string(plan->op()) << " n=" << n);
      const CollectiveTiming bulk = time_collective(router, *plan);
      ExecutorOptions per_flow;
      per_flow.bulk = false;
      const CollectiveTiming flows = time_collective(router, *plan, per_flow);
      CHECK(std::llabs(bulk.time.ps() - flows.time.ps()) <= static_cast<std::int64_t>(2 * n));
      double planned = 0;
      PlanStep step;
      for (std::uint32_t r = 0; r < plan->participant_count(); ++r) {  // a tree's down streams too
        for (std::uint32_t s = 0; s < plan->step_count(Rank{r}); ++s) {
          plan->step(Rank{r}, s, step);
          for (const auto& send : step.sends) planned += send.bytes;
        }
      }
      CHECK(bulk.stats.bytes_sent == Approx(planned));
      CHECK(flows.stats.bytes_sent == Approx(planned));
    }
  }
}
