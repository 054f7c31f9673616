// Direct (all-to-all) plans as pure data: every operation moves the right data in one or two steps, byte
// totals, and the size limit.
#include <catch2/catch.hpp>

#include "plan_checks.hpp"
#include "syncsim/collectives/direct_plan.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;
using plan_checks::check_moves_right_data;

TEST_CASE("direct AllReduce, ReduceScatter and AllGather move chunk d to rank d and back", "[direct_plan]") {
  for (std::size_t n : {2, 3, 5, 6, 7, 12, 64}) {
    const Bytes size{static_cast<std::int64_t>(n) * 100};
    const auto pieces = static_cast<std::uint32_t>(n);
    const DirectPlan allreduce(CollectiveOp::allreduce, n, size);
    CHECK(allreduce.step_count(Rank{0}) == 2);
    check_moves_right_data(allreduce, pieces);
    check_moves_right_data(DirectPlan(CollectiveOp::reduce_scatter, n, size), pieces);
    check_moves_right_data(DirectPlan(CollectiveOp::all_gather, n, size), pieces);
  }
}

TEST_CASE("direct Broadcast and Reduce: one step between the root and everyone", "[direct_plan]") {
  for (std::size_t n : {2, 3, 7, 12}) {
    for (std::uint32_t root : {0u, 1u, static_cast<std::uint32_t>(n - 1)}) {
      check_moves_right_data(DirectPlan(CollectiveOp::broadcast, n, Bytes{1000}, Rank{root}), 1, Rank{root});
      check_moves_right_data(DirectPlan(CollectiveOp::reduce, n, Bytes{1000}, Rank{root}), 1, Rank{root});
    }
  }
}

TEST_CASE("direct byte totals: AllReduce 2(n-1)S, the others (n-1)S", "[direct_plan]") {
  const std::size_t n = 9;
  const double size = 9e6;
  const auto expected = [&](CollectiveOp op) { return (op == CollectiveOp::allreduce ? 2.0 : 1.0) * 8 * size; };
  for (auto op : {CollectiveOp::allreduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather,
                  CollectiveOp::broadcast, CollectiveOp::reduce}) {
    const auto t = plan_checks::totals(DirectPlan(op, n, Bytes{9'000'000}, Rank{4}));
    INFO(to_string(op));
    CHECK(t.sends == t.receives);
    CHECK(t.bytes_sent == Approx(expected(op)));
  }
}

TEST_CASE("direct rejects large groups and missing roots", "[direct_plan]") {
  CHECK_THROWS_AS(DirectPlan(CollectiveOp::allreduce, 1, Bytes{8}), InputError);
  CHECK_NOTHROW(DirectPlan(CollectiveOp::allreduce, 64, Bytes{8}));
  CHECK_THROWS_WITH(DirectPlan(CollectiveOp::allreduce, 65, Bytes{8}), Catch::Contains("direct is for small groups"));
  CHECK_THROWS_WITH(DirectPlan(CollectiveOp::broadcast, 4, Bytes{8}, Rank{4}), Catch::Contains("root 4"));
}
