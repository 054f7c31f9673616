// AllToAll plans as pure data: direct and hierarchical deliver every block (src, dst) to dst exactly once, with
// nccl-tests' bytes, and refuse what they cannot run.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <utility>

#include "plan_checks.hpp"
#include "syncsim/collectives/algorithm.hpp"
#include "syncsim/collectives/direct_plan.hpp"
#include "syncsim/collectives/hierarchical_alltoall_plan.hpp"
#include "syncsim/core/input_error.hpp"
#include "test_fabrics.hpp"

using namespace syncsim;
using namespace syncsim::test_fabrics;

namespace {

using Block = std::pair<std::uint32_t, std::uint32_t>;  // (src, dst): src's S/n bytes for dst

// Replays the plan step by step (its steps are phases every rank takes together): each send carries the blocks
// its sender holds that `carries(dst of the block, receiver)` says go that way, and must weigh exactly their bytes.
// Returns what every rank holds at the end.
template <class Carries>
std::vector<std::set<Block>> replay_blocks(const CollectivePlan& plan, Carries carries) {
  const auto n = static_cast<std::uint32_t>(plan.rank_count());
  const double block = static_cast<double>(plan.size().value) / n;
  std::vector<std::set<Block>> held(n);
  for (std::uint32_t r = 0; r < n; ++r) {
    for (std::uint32_t d = 0; d < n; ++d) held[r].insert({r, d});
  }
  PlanStep step;
  for (std::uint32_t s = 0; s < plan.step_count(Rank{0}); ++s) {
    std::vector<std::set<Block>> next = held;
    for (std::uint32_t r = 0; r < n; ++r) {
      plan.step(Rank{r}, s, step);
      for (const PlanSend& send : step.sends) {
        std::size_t moved = 0;
        for (const Block& b : held[r]) {
          if (b.second == r || !carries(s, b.second, send.dst.value())) continue;
          next[r].erase(b);
          next[send.dst.value()].insert(b);
          ++moved;
        }
        INFO("step " << s << " rank " << r << " to " << send.dst.value());
        CHECK(send.bytes == Approx(static_cast<double>(moved) * block));
      }
    }
    held = std::move(next);
  }
  return held;
}

void check_delivered(const std::vector<std::set<Block>>& held) {
  const auto n = static_cast<std::uint32_t>(held.size());
  for (std::uint32_t d = 0; d < n; ++d) {
    std::set<Block> expected;
    for (std::uint32_t s = 0; s < n; ++s) expected.insert({s, d});
    INFO("rank " << d);
    CHECK(held[d] == expected);
  }
}

}  // namespace

TEST_CASE("direct AllToAll: one step, every rank sends block (r, d) of S/n to every other rank d", "[alltoall]") {
  for (const std::size_t n : {2, 3, 8, 13}) {
    const DirectPlan plan(CollectiveOp::alltoall, n, Bytes{static_cast<std::int64_t>(n) * 1000});
    plan_checks::check_addressing(plan);
    CHECK(plan.step_count(Rank{0}) == 1);
    CHECK(plan.uniform_pattern(0) == 0u);
    check_delivered(replay_blocks(plan, [](std::uint32_t, std::uint32_t dst, std::uint32_t to) { return dst == to; }));
    // (n-1)/n of every buffer leaves its rank: n(n-1) transfers of S/n.
    const auto totals = plan_checks::totals(plan);
    CHECK(totals.sends == n * (n - 1));
    CHECK(totals.bytes_sent == Approx(static_cast<double>(n - 1) * 1000 * static_cast<double>(n)));
  }
}

TEST_CASE("hierarchical AllToAll: NVLink to the rail peer, then one all-to-all per rail", "[alltoall]") {
  for (const auto& [h, g] : {std::pair{2u, 4u}, {3u, 2u}, {4u, 8u}, {5u, 1u}, {2u, 3u}}) {
    const std::uint32_t n = h * g;
    const HierarchicalAllToAllPlan plan(n, Bytes{std::int64_t{n} * 240}, hosts_of(h, g));
    INFO(h << " hosts of " << g);
    plan_checks::check_addressing(plan);
    CHECK(plan.step_count(Rank{0}) == (g > 1 ? 2u : 1u));
    // Step 0 (with g > 1) moves a block to the local GPU on its destination's rail; the rail step to its destination.
    const auto rail_step = [g](std::uint32_t s) { return g == 1 || s == 1; };
    const auto held = replay_blocks(plan, [&](std::uint32_t s, std::uint32_t dst, std::uint32_t to) {
      return rail_step(s) ? dst == to : dst % g == to % g;
    });
    check_delivered(held);
    PlanStep step;
    plan.step(Rank{0}, 0, step);
    if (g > 1) {
      CHECK(step.sends.size() == g - 1);  // S/g each
      CHECK(step.sends[0].bytes == Approx(240.0 * n / g));
      plan.step(Rank{0}, 1, step);
    }
    CHECK(step.sends.size() == h - 1);  // S/h each, every one on rank 0's rail
    CHECK(step.sends[0].bytes == Approx(240.0 * n / h));
    for (const PlanSend& send : step.sends) CHECK(send.dst.value() % g == 0);
  }
}

TEST_CASE("AllToAll runs with direct and hierarchical only, within the size guard", "[alltoall]") {
  PlanContext context;
  context.hosts = hosts_of(2, 4);
  CHECK(make_plan(Algorithm::direct, CollectiveOp::alltoall, 8, Bytes{8000}, context)->algorithm() == "direct");
  CHECK(make_plan(Algorithm::hierarchical, CollectiveOp::alltoall, 8, Bytes{8000}, context)->op() ==
        CollectiveOp::alltoall);
  for (const Algorithm algorithm : {Algorithm::ring, Algorithm::tree, Algorithm::halving_doubling}) {
    CHECK_THROWS_WITH(make_plan(algorithm, CollectiveOp::alltoall, 8, Bytes{8000}, context),
                      Catch::Contains("cannot run alltoall"));
  }
  CHECK_THROWS_WITH(make_plan(Algorithm::hierarchical, CollectiveOp::alltoall, 8, Bytes{8000}, PlanContext{}),
                    Catch::Contains("hierarchical needs ranks grouped by host"));
  // The 64-rank cap of the other direct collectives does not apply; memory for n^2 routes does.
  CHECK_NOTHROW(DirectPlan(CollectiveOp::alltoall, 2048, Bytes{8}));
  CHECK_THROWS_WITH(DirectPlan(CollectiveOp::alltoall, 2049, Bytes{8}),
                    Catch::Contains("2049 ranks needs 4196352 routes") && Catch::Contains("at most 2048"));
  CHECK_THROWS_WITH(DirectPlan(CollectiveOp::allreduce, 65, Bytes{8}), Catch::Contains("direct is for small groups"));
}
