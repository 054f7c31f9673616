// Recursive halving-doubling as pure data: schedules that move the right data (with the fold for non-powers of
// two), byte totals, symmetry declared only where it holds, and bad input.
#include <catch2/catch.hpp>

#include <bit>

#include "plan_checks.hpp"
#include "syncsim/collectives/halving_doubling_plan.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;
using plan_checks::check_moves_right_data;

TEST_CASE("halving-doubling AllReduce reduces everything, folding non-powers of two", "[halving_doubling]") {
  for (std::size_t n : {2, 3, 4, 5, 6, 7, 8, 12, 16, 31, 32}) {
    const HalvingDoublingPlan plan(CollectiveOp::allreduce, n, Bytes{static_cast<std::int64_t>(n) * 1000});
    check_moves_right_data(plan, plan.piece_count());
  }
}

TEST_CASE("halving-doubling step counts: 2 log2 n, plus a fold step at each end", "[halving_doubling]") {
  const HalvingDoublingPlan pow2(CollectiveOp::allreduce, 8, Bytes{800});
  CHECK(pow2.step_count(Rank{5}) == 6);
  // n = 6: m = 4, r = 2; ranks 1 and 3 fold into 0 and 2.
  const HalvingDoublingPlan folded(CollectiveOp::allreduce, 6, Bytes{600});
  CHECK(folded.piece_count() == 4);
  CHECK(folded.step_count(Rank{1}) == 2);
  CHECK(folded.step_count(Rank{3}) == 2);
  CHECK(folded.step_count(Rank{0}) == 6);
  CHECK(folded.step_count(Rank{5}) == 6);
}

TEST_CASE("halving ReduceScatter leaves piece r summed on rank r, doubling AllGather spreads every piece",
          "[halving_doubling]") {
  for (std::size_t n : {2, 4, 8, 32}) {
    const HalvingDoublingPlan scatter(CollectiveOp::reduce_scatter, n, Bytes{static_cast<std::int64_t>(n) * 64});
    CHECK(scatter.step_count(Rank{0}) == static_cast<std::uint32_t>(std::countr_zero(n)));  // log2 n
    check_moves_right_data(scatter, static_cast<std::uint32_t>(n));
    const HalvingDoublingPlan gather(CollectiveOp::all_gather, n, Bytes{static_cast<std::int64_t>(n) * 64});
    check_moves_right_data(gather, static_cast<std::uint32_t>(n));
  }
}

TEST_CASE("halving-doubling byte totals: AllReduce 2(n-1)S with or without the fold, halves (n-1)S",
          "[halving_doubling]") {
  const double size = 1 << 20;
  for (std::size_t n : {2, 3, 6, 8, 12, 64}) {
    const auto t = plan_checks::totals(HalvingDoublingPlan(CollectiveOp::allreduce, n, Bytes{1 << 20}));
    CHECK(t.sends == t.receives);
    CHECK(t.bytes_sent == Approx(2.0 * static_cast<double>(n - 1) * size));
  }
  for (auto op : {CollectiveOp::reduce_scatter, CollectiveOp::all_gather}) {
    const auto t = plan_checks::totals(HalvingDoublingPlan(op, 16, Bytes{1 << 20}));
    CHECK(t.bytes_sent == Approx(15 * size));
  }
}

TEST_CASE("symmetry: one pattern per step for powers of two, none with the fold", "[halving_doubling]") {
  const HalvingDoublingPlan pow2(CollectiveOp::allreduce, 8, Bytes{8192});
  PlanStep step;
  for (std::uint32_t s = 0; s < 6; ++s) {
    REQUIRE(pow2.uniform_pattern(s) == s);
    // What the id promises: one send and one receive per rank, equal bytes and reduce bytes, feeding step s.
    pow2.step(Rank{0}, s, step);
    const double bytes = step.sends.at(0).bytes;
    const double reduce = step.reduce_bytes;
    for (std::uint32_t r = 0; r < 8; ++r) {
      pow2.step(Rank{r}, s, step);
      REQUIRE(step.sends.size() == 1);
      CHECK(step.recv_count == 1);
      CHECK(step.sends[0].dst_step == s);
      CHECK(step.sends[0].bytes == bytes);
      CHECK(step.reduce_bytes == reduce);
    }
  }
  const HalvingDoublingPlan folded(CollectiveOp::allreduce, 6, Bytes{600});
  for (std::uint32_t s = 0; s < 6; ++s) CHECK_FALSE(folded.uniform_pattern(s).has_value());
}

TEST_CASE("halving-doubling rejects impossible set-ups", "[halving_doubling]") {
  CHECK_THROWS_AS(HalvingDoublingPlan(CollectiveOp::allreduce, 1, Bytes{8}), InputError);
  CHECK_THROWS_WITH(HalvingDoublingPlan(CollectiveOp::broadcast, 4, Bytes{8}), Catch::Contains("no root"));
  CHECK_THROWS_WITH(HalvingDoublingPlan(CollectiveOp::reduce, 4, Bytes{8}), Catch::Contains("no root"));
  CHECK_THROWS_WITH(HalvingDoublingPlan(CollectiveOp::reduce_scatter, 6, Bytes{8}), Catch::Contains("power-of-two"));
  CHECK_THROWS_WITH(HalvingDoublingPlan(CollectiveOp::all_gather, 12, Bytes{8}), Catch::Contains("power-of-two"));
}
