// The binary-tree plans as pure data: the trees' shapes (NCCL's double binary tree), schedules that move the
// right data for every root and slice count, byte totals, and bad input.
#include <catch2/catch.hpp>

#include <vector>

#include "plan_checks.hpp"
#include "syncsim/collectives/tree_plan.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;
using plan_checks::check_moves_right_data;

namespace {
TreePlan tree(CollectiveOp op, std::size_t n, std::uint32_t which, std::uint32_t slices = 1, Rank root = Rank{0}) {
  TreeOptions options;
  options.tree = which;
  options.pipeline_slices = slices;
  options.root = root;
  return TreePlan(op, n, Bytes{static_cast<std::int64_t>(n) * 7919 * slices}, options);
}
}  // namespace

TEST_CASE("tree 0 on 14 ranks is NCCL's in-order tree: 0 -> 8, 8 -> 4 12, 12 -> 10 13", "[tree_plan]") {
  const TreePlan plan = tree(CollectiveOp::allreduce, 14, 0);
  CHECK(plan.root() == Rank{0});
  CHECK(plan.height() == 4);  // 0 - 8 - 4 - 2 - 1
  CHECK(plan.parent(Rank{8}) == Rank{0});
  CHECK(plan.parent(Rank{4}) == Rank{8});
  CHECK(plan.parent(Rank{12}) == Rank{8});
  CHECK(plan.parent(Rank{13}) == Rank{12});  // 14 does not exist: 13 hangs from 12
  CHECK(plan.parent(Rank{11}) == Rank{10});
  CHECK(plan.child_count(Rank{0}) == 1);
  CHECK(plan.child_count(Rank{12}) == 2);
  CHECK(plan.child_count(Rank{13}) == 0);
}

TEST_CASE("tree 1 mirrors even n and shifts odd n, so every leaf of tree 0 is interior in tree 1", "[tree_plan]") {
  for (std::size_t n = 2; n <= 33; ++n) {
    const TreePlan t0 = tree(CollectiveOp::allreduce, n, 0);
    const TreePlan t1 = tree(CollectiveOp::allreduce, n, 1);
    CHECK(t1.root() == Rank{static_cast<std::uint32_t>(n % 2 == 0 ? n - 1 : 1)});
    for (std::uint32_t r = 0; r < n; ++r) {
      INFO("n=" << n << " rank " << r);
      if (t0.child_count(Rank{r}) == 0) CHECK(t1.child_count(Rank{r}) > 0);
    }
    // Both are trees: n-1 edges, every non-root rank has a parent, the root none.
    for (const TreePlan* t : {&t0, &t1}) {
      std::uint32_t edges = 0;
      for (std::uint32_t r = 0; r < n; ++r) {
        edges += t->child_count(Rank{r});
        CHECK(t->parent(Rank{r}).has_value() == (Rank{r} != t->root()));
      }
      CHECK(edges == n - 1);
    }
  }
}

TEST_CASE("tree AllReduce: every rank ends with every slice summed over all ranks", "[tree_plan]") {
  for (std::size_t n : {2, 3, 5, 6, 7, 8, 12, 13, 31}) {
    for (std::uint32_t which : {0u, 1u}) {
      for (std::uint32_t slices : {1u, 2u, 5u}) {
        check_moves_right_data(tree(CollectiveOp::allreduce, n, which, slices), slices);
      }
    }
  }
}

TEST_CASE("tree Reduce and Broadcast re-root the tree on any root", "[tree_plan]") {
  for (std::size_t n : {2, 3, 5, 6, 7, 12}) {
    for (std::uint32_t root = 0; root < n; root += 2) {
      for (std::uint32_t which : {0u, 1u}) {
        const TreePlan reduce = tree(CollectiveOp::reduce, n, which, 3, Rank{root});
        CHECK(reduce.root() == Rank{root});
        check_moves_right_data(reduce, 3, Rank{root});
        const TreePlan broadcast = tree(CollectiveOp::broadcast, n, which, 3, Rank{root});
        CHECK(broadcast.root() == Rank{root});
        check_moves_right_data(broadcast, 3, Rank{root});
      }
    }
  }
}

TEST_CASE("tree byte totals: AllReduce 2(n-1)S, Reduce and Broadcast (n-1)S", "[tree_plan]") {
  for (std::size_t n : {2, 5, 8, 13}) {
    for (std::uint32_t slices : {1u, 4u}) {
      const TreePlan allreduce = tree(CollectiveOp::allreduce, n, 1, slices);
      const double size = static_cast<double>(allreduce.size().value);
      const auto all = plan_checks::totals(allreduce);
      CHECK(all.sends == all.receives);
      CHECK(all.bytes_sent == Approx(2.0 * static_cast<double>(n - 1) * size));
      for (auto op : {CollectiveOp::reduce, CollectiveOp::broadcast}) {
        const auto t = plan_checks::totals(tree(op, n, 0, slices, Rank{1}));
        CHECK(t.sends == t.receives);
        CHECK(t.bytes_sent == Approx(static_cast<double>(n - 1) * size));
      }
    }
  }
}

TEST_CASE("tree plans reject impossible set-ups", "[tree_plan]") {
  CHECK_THROWS_AS(TreePlan(CollectiveOp::allreduce, 1, Bytes{8}), InputError);
  CHECK_THROWS_WITH(TreePlan(CollectiveOp::reduce_scatter, 4, Bytes{8}), Catch::Contains("cannot run"));
  CHECK_THROWS_WITH(TreePlan(CollectiveOp::all_gather, 4, Bytes{8}), Catch::Contains("cannot run"));
  TreeOptions root;
  root.root = Rank{4};
  CHECK_THROWS_WITH(TreePlan(CollectiveOp::reduce, 4, Bytes{8}, root), Catch::Contains("root 4"));
  TreeOptions slices;
  slices.pipeline_slices = 0;
  CHECK_THROWS_WITH(TreePlan(CollectiveOp::allreduce, 4, Bytes{8}, slices), Catch::Contains("slices"));
  TreeOptions third;
  third.tree = 2;
  CHECK_THROWS_WITH(TreePlan(CollectiveOp::allreduce, 4, Bytes{8}, third), Catch::Contains("trees 0 and 1"));
}
