// Hierarchical AllReduce as pure data: the three phases move the right data for any host layout, byte totals,
// one symmetry pattern per phase, and the host structure it needs.
#include <catch2/catch.hpp>

#include <vector>

#include "plan_checks.hpp"
#include "syncsim/collectives/hierarchical_plan.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;
using plan_checks::check_moves_right_data;

namespace {
// h hosts of g ranks, host j holding ranks j*g .. j*g+g-1 (the dgx topology's GPU numbering).
std::vector<std::vector<Rank>> blocks(std::uint32_t h, std::uint32_t g) {
  std::vector<std::vector<Rank>> hosts(h);
  for (std::uint32_t j = 0; j < h; ++j) {
    for (std::uint32_t i = 0; i < g; ++i) hosts[j].push_back(Rank{j * g + i});
  }
  return hosts;
}
}  // namespace

TEST_CASE("hierarchical AllReduce: every rank ends with every piece summed over all hosts", "[hierarchical]") {
  for (const auto& [h, g] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{
           {2, 1}, {2, 2}, {3, 2}, {2, 3}, {3, 4}, {4, 3}, {5, 1}, {2, 6}, {4, 8}}) {
    const std::size_t n = h * g;
    const HierarchicalPlan plan(CollectiveOp::allreduce, n, Bytes{static_cast<std::int64_t>(n) * 512}, blocks(h, g));
    INFO("h=" << h << " g=" << g);
    CHECK(plan.step_count(Rank{0}) == 2 * (g - 1) + 2 * (h - 1));
    check_moves_right_data(plan, static_cast<std::uint32_t>(n));
  }
}

TEST_CASE("hierarchical AllReduce with hosts that interleave ranks", "[hierarchical]") {
  // Host 0 = {0, 2, 4}, host 1 = {5, 3, 1}: rails pair 0-5, 2-3, 4-1.
  const std::vector<std::vector<Rank>> hosts{{Rank{0}, Rank{2}, Rank{4}}, {Rank{5}, Rank{3}, Rank{1}}};
  check_moves_right_data(HierarchicalPlan(CollectiveOp::allreduce, 6, Bytes{6000}, hosts), 6);
}

TEST_CASE("hierarchical byte total is a ring's: 2(n-1)S", "[hierarchical]") {
  const HierarchicalPlan plan(CollectiveOp::allreduce, 12, Bytes{12'000'000}, blocks(3, 4));
  const auto t = plan_checks::totals(plan);
  CHECK(t.sends == t.receives);
  CHECK(t.bytes_sent == Approx(2.0 * 11 * 12e6));
}

TEST_CASE("hierarchical declares one pattern per phase", "[hierarchical]") {
  const HierarchicalPlan plan(CollectiveOp::allreduce, 12, Bytes{12000}, blocks(3, 4));
  // Steps: 3 intra reduce-scatter, 2 inter reduce-scatter, 2 inter all-gather, 3 intra all-gather.
  const std::vector<std::uint32_t> expected{0, 0, 0, 1, 1, 2, 2, 3, 3, 3};
  for (std::uint32_t s = 0; s < expected.size(); ++s) CHECK(plan.uniform_pattern(s) == expected[s]);
}

TEST_CASE("hierarchical needs equal hosts, at least two of them, and AllReduce", "[hierarchical]") {
  CHECK_THROWS_WITH(HierarchicalPlan(CollectiveOp::allreduce, 4, Bytes{8}, {}), Catch::Contains("at least 2 hosts"));
  CHECK_THROWS_WITH(HierarchicalPlan(CollectiveOp::allreduce, 4, Bytes{8}, blocks(1, 4)),
                    Catch::Contains("at least 2 hosts"));
  const std::vector<std::vector<Rank>> uneven{{Rank{0}, Rank{1}, Rank{2}}, {Rank{3}}};
  CHECK_THROWS_WITH(HierarchicalPlan(CollectiveOp::allreduce, 4, Bytes{8}, uneven),
                    Catch::Contains("same number of ranks"));
  const std::vector<std::vector<Rank>> repeated{{Rank{0}, Rank{1}}, {Rank{1}, Rank{3}}};
  CHECK_THROWS_WITH(HierarchicalPlan(CollectiveOp::allreduce, 4, Bytes{8}, repeated), Catch::Contains("repeated"));
  CHECK_THROWS_WITH(HierarchicalPlan(CollectiveOp::allreduce, 6, Bytes{8}, blocks(2, 2)), Catch::Contains("hold 4"));
  CHECK_THROWS_WITH(HierarchicalPlan(CollectiveOp::reduce_scatter, 4, Bytes{8}, blocks(2, 2)),
                    Catch::Contains("allreduce only"));
}
