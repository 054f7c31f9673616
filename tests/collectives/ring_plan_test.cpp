// The ring plans as pure data: their schedules move the right data (checked by replaying the plan on sets of
// contributions), send the right number of bytes, and declare symmetry only where it holds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bitset>
#include <vector>

#include "plan_checks.hpp"
#include "plan_replay.hpp"
#include "syncsim/collectives/ring_plan.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;

using plan_replay::Contributions;
using plan_replay::everyone;
using plan_replay::own_data;
using plan_replay::replay;

TEST_CASE("ring AllReduce: every rank ends with every chunk summed over all ranks", "[ring_plan]") {
  for (std::size_t n : {2, 3, 4, 5, 8, 13}) {
    const RingPlan plan(CollectiveOp::allreduce, n, Bytes{1 << 20});
    CHECK(plan.step_count(Rank{0}) == 2 * (n - 1));
    const auto held = replay(plan, n, own_data(n, n));
    for (std::size_t r = 0; r < n; ++r) {
      for (std::size_t c = 0; c < n; ++c) REQUIRE(held[r][c] == everyone(n));
    }
  }
}

TEST_CASE("ring AllReduce in a custom order still reduces everything", "[ring_plan]") {
  RingOptions options;
  options.order = {Rank{3}, Rank{0}, Rank{5}, Rank{1}, Rank{4}, Rank{2}};
  const RingPlan plan(CollectiveOp::allreduce, 6, Bytes{600}, options);
  const auto held = replay(plan, 6, own_data(6, 6));
  for (std::size_t r = 0; r < 6; ++r) {
    for (std::size_t c = 0; c < 6; ++c) REQUIRE(held[r][c] == everyone(6));
  }
}

TEST_CASE("ring ReduceScatter leaves the full sum of chunk r on rank r", "[ring_plan]") {
  const std::size_t n = 7;
  const RingPlan plan(CollectiveOp::reduce_scatter, n, Bytes{7000});
  const auto held = replay(plan, n, own_data(n, n));
  for (std::size_t r = 0; r < n; ++r) CHECK(held[r][r] == everyone(n));
}

TEST_CASE("ring AllGather gives every rank every rank's chunk", "[ring_plan]") {
  const std::size_t n = 6;
  // Rank r starts with only its own chunk r (contribution r); others are empty.
  std::vector<std::vector<Contributions>> initial(n, std::vector<Contributions>(n));
  for (std::size_t r = 0; r < n; ++r) initial[r][r].set(r);
  const RingPlan plan(CollectiveOp::all_gather, n, Bytes{6000});
  const auto held = replay(plan, n, initial);
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t c = 0; c < n; ++c) REQUIRE(held[r][c] == Contributions{}.set(c));
  }
}

TEST_CASE("pipelined broadcast delivers every slice from the root to every rank", "[ring_plan]") {
  for (std::uint32_t slices : {1u, 2u, 5u}) {
    const std::size_t n = 5;
    RingOptions options;
    options.root = Rank{2};
    options.pipeline_slices = slices;
    const RingPlan plan(CollectiveOp::broadcast, n, Bytes{1000}, options);
    std::vector<std::vector<Contributions>> initial(n, std::vector<Contributions>(slices));
    for (auto& slice : initial[2]) slice.set(2);
    const auto held = replay(plan, slices, initial);
    for (std::size_t r = 0; r < n; ++r) {
      for (std::uint32_t j = 0; j < slices; ++j) REQUIRE(held[r][j] == Contributions{}.set(2));
    }
  }
}

TEST_CASE("pipelined ring reduce sums every slice into the root", "[ring_plan]") {
  const std::size_t n = 6;
  RingOptions options;
  options.root = Rank{4};
  options.pipeline_slices = 3;
  const RingPlan plan(CollectiveOp::reduce, n, Bytes{3000}, options);
  const auto held = replay(plan, 3, own_data(n, 3));
  for (std::uint32_t j = 0; j < 3; ++j) CHECK(held[4][j] == everyone(n));
}

TEST_CASE("bytes are conserved: every send has a receive, totals match the algorithm", "[ring_plan]") {
  const std::size_t n = 8;
  const double size = 8e6;
  for (auto op : {CollectiveOp::allreduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather}) {
    const RingPlan plan(op, n, Bytes{static_cast<std::int64_t>(size)});
    double sent = 0;
    std::uint64_t sends = 0, receives = 0;
    PlanStep step;
    for (std::uint32_t r = 0; r < n; ++r) {
      for (std::uint32_t s = 0; s < plan.step_count(Rank{r}); ++s) {
        plan.step(Rank{r}, s, step);
        for (const auto& send : step.sends) sent += send.bytes;
        sends += step.sends.size();
        receives += step.recv_count;
      }
    }
    CHECK(sends == receives);
    const double steps = op == CollectiveOp::allreduce ? 2.0 * (n - 1) : n - 1.0;
    CHECK(sent == Approx(steps * size));  // n ranks x steps x S/n
  }
}

TEST_CASE("symmetry is declared for ring AllReduce steps, not for a broadcast chain", "[ring_plan]") {
  const RingPlan allreduce(CollectiveOp::allreduce, 4, Bytes{4096});
  CHECK(allreduce.uniform_pattern(0) == allreduce.uniform_pattern(2));
  CHECK(allreduce.uniform_pattern(3) != allreduce.uniform_pattern(0));  // all-gather half does not reduce
  const RingPlan broadcast(CollectiveOp::broadcast, 4, Bytes{4096});
  CHECK_FALSE(broadcast.uniform_pattern(0).has_value());
}

TEST_CASE("ring plans reject impossible set-ups", "[ring_plan]") {
  CHECK_THROWS_AS(RingPlan(CollectiveOp::allreduce, 1, Bytes{8}), InputError);
  RingOptions repeated;
  repeated.order = {Rank{0}, Rank{0}, Rank{1}};
  CHECK_THROWS_WITH(RingPlan(CollectiveOp::allreduce, 3, Bytes{8}, repeated), Catch::Contains("permutation"));
  RingOptions root;
  root.root = Rank{9};
  CHECK_THROWS_WITH(RingPlan(CollectiveOp::broadcast, 3, Bytes{8}, root), Catch::Contains("root 9"));
  RingOptions piped;
  piped.pipeline_slices = 4;
  CHECK_THROWS_WITH(RingPlan(CollectiveOp::allreduce, 3, Bytes{8}, piped), Catch::Contains("pipelining"));
}

TEST_CASE("a ring relabelled: any order runs as any other, place for place, from the root for chains", "[ring_plan]") {
  for (const auto op : {CollectiveOp::allreduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather,
                        CollectiveOp::broadcast, CollectiveOp::reduce}) {
    const bool chain = op == CollectiveOp::broadcast || op == CollectiveOp::reduce;
    const RingPlan plan(op, 6, Bytes{60'000},
                        {.order = {Rank{3}, Rank{1}, Rank{4}, Rank{0}, Rank{5}, Rank{2}},
                         .pipeline_slices = chain ? 3U : 1U,
                         .root = Rank{4}});
    const RingPlan other(op, 6, Bytes{60'000}, {.pipeline_slices = chain ? 3U : 1U, .root = Rank{1}});
    INFO(to_string(op));
    plan_checks::check_relabelling(plan, other, plan.relabelling_of(other));
    CHECK(plan.relabelling_of(RingPlan(op, 6, Bytes{60'001}, {.pipeline_slices = chain ? 3U : 1U})).empty());
    CHECK(plan.relabelling_of(RingPlan(op, 7, Bytes{60'000}, {.pipeline_slices = chain ? 3U : 1U})).empty());
  }
}
