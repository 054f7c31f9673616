// PAT (pat_plan.hpp): the aggregated binomial trees move every piece exactly where it must go, the messages and
// rounds follow NCCL's buffer limits, and the time on a switch is the closed form.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "syncsim/collectives/collective_executor.hpp"
#include "syncsim/collectives/pat_plan.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;

namespace {

// The pieces each dimension moves per rank, by replaying the trees on real piece sets: AllGather from the highest
// dimension down, every rank forwarding to r + 2^d the pieces whose offset from their owner is a multiple of
// 2^(d+1) and whose destination offset stays below n. Returns the counts by dimension and checks that every rank
// ends with every piece, each received once.
std::vector<std::uint32_t> replay_all_gather(std::uint32_t n) {
  std::vector<std::set<std::uint32_t>> held(n);
  for (std::uint32_t r = 0; r < n; ++r) held[r].insert(r);
  std::uint32_t dimensions = 0;
  while ((std::uint32_t{1} << dimensions) < n) ++dimensions;
  std::vector<std::uint32_t> counts(dimensions, 0);
  for (std::uint32_t i = 0; i < dimensions; ++i) {
    const std::uint32_t d = dimensions - 1 - i;
    const std::uint32_t distance = std::uint32_t{1} << d;
    std::vector<std::set<std::uint32_t>> incoming(n);
    for (std::uint32_t r = 0; r < n; ++r) {
      std::uint32_t sent = 0;
      for (const std::uint32_t q : held[r]) {
        const std::uint32_t s = (r + n - q) % n;
        if (s % (2 * distance) == 0 && s + distance < n) {
          incoming[(r + distance) % n].insert(q);
          ++sent;
        }
      }
      if (r == 0) counts[d] = sent;
      CHECK(sent == counts[d]);  // every rank sends as many
    }
    for (std::uint32_t r = 0; r < n; ++r) {
      for (const std::uint32_t q : incoming[r]) CHECK(held[r].insert(q).second);  // never twice
    }
  }
  for (std::uint32_t r = 0; r < n; ++r) CHECK(held[r].size() == n);
  return counts;
}

// Pieces per dimension as the plan sends them (one round).
std::vector<std::uint32_t> plan_counts(const PatPlan& plan, double piece_bytes) {
  std::vector<std::uint32_t> counts;
  PlanStep step;
  for (std::uint32_t t = 0; t < plan.messages_per_round(); ++t) {
    plan.step(Rank{0}, t, step);
    REQUIRE(step.sends.size() == 1);
    const auto pieces = static_cast<std::uint32_t>(std::llround(step.sends[0].bytes / piece_bytes));
    const std::uint32_t distance = step.sends[0].dst.value();  // rank 0 sends to 0 + 2^d
    std::uint32_t d = 0;
    while ((std::uint32_t{1} << d) != distance) ++d;
    if (counts.size() <= d) counts.resize(d + 1, 0);
    counts[d] += pieces;
  }
  return counts;
}

}  // namespace

TEST_CASE("pat AllGather moves every piece to every rank once, n-1 pieces per rank", "[pat]") {
  for (const std::uint32_t n : {2U, 3U, 5U, 6U, 8U, 13U, 16U, 31U, 64U, 100U}) {
    INFO("n=" << n);
    const std::vector<std::uint32_t> expected = replay_all_gather(n);
    // A tiny size aggregates fully: one message per dimension.
    const PatPlan plan(CollectiveOp::all_gather, n, Bytes{n * 8});
    CHECK(plan.rounds() == 1);
    CHECK(plan_counts(plan, 8.0) == expected);
    std::uint32_t total = 0;
    for (const std::uint32_t c : expected) total += c;
    CHECK(total == n - 1);
  }
}

TEST_CASE("pat ReduceScatter runs the same trees backwards, reducing what it receives", "[pat]") {
  const PatPlan plan(CollectiveOp::reduce_scatter, 8, Bytes{8 * 1024});
  PlanStep step;
  // Dimensions 0, 1, 2 in that order, to rank r - 2^d, 4, 2 and 1 pieces.
  const std::uint32_t distances[] = {1, 2, 4};
  const double pieces[] = {4, 2, 1};
  REQUIRE(plan.step_count(Rank{3}) == 3);
  for (std::uint32_t t = 0; t < 3; ++t) {
    plan.step(Rank{3}, t, step);
    CHECK(step.sends[0].dst.value() == (3 + 8 - distances[t]) % 8);
    CHECK(step.sends[0].bytes == pieces[t] * 1024);
    CHECK(step.reduce_bytes == pieces[t] * 1024);
    CHECK(step.recv_count == 1);
  }
}

TEST_CASE("pat follows NCCL's buffers: chunks halve for small sizes, rounds and messages grow for large", "[pat]") {
  // 2 MiB halved while chunk x 32 exceeds the channel's size, down to 64 KiB.
  CHECK(PatPlan::nccl_chunk_bytes(CollectiveOp::all_gather, Bytes{std::int64_t{1} << 30}) == 2 * 1024 * 1024);
  CHECK(PatPlan::nccl_chunk_bytes(CollectiveOp::all_gather, Bytes{32 * 1024 * 1024}) == 1024 * 1024);
  CHECK(PatPlan::nccl_chunk_bytes(CollectiveOp::reduce_scatter, Bytes{32 * 1024 * 1024}) == 2 * 1024 * 1024);
  CHECK(PatPlan::nccl_chunk_bytes(CollectiveOp::all_gather, Bytes{1024}) == 64 * 1024);

  // 64 ranks, 1 GiB: pieces of 16 MiB in rounds of 2 MiB; aggregation 1 from the buffer, x8 for the steps in
  // flight; dimensions carry 1, 2, 4, 8, 16, 32 pieces: 1 + 1 + 1 + 1 + 2 + 4 = 10 messages.
  const std::int64_t big = std::int64_t{1} << 30;
  const PatPlan large(CollectiveOp::all_gather, 64, Bytes{big}, PatOptions{2 * 1024 * 1024});
  CHECK(large.rounds() == 8);
  CHECK(large.aggregation() == 8);
  CHECK(large.messages_per_round() == 10);
  CHECK(large.step_count(Rank{0}) == 80);
  // 64 ranks, 64 KiB: one round, aggregation up to n/2 = 32: one message per dimension.
  const PatPlan small(CollectiveOp::all_gather, 64, Bytes{64 * 1024}, PatOptions{64 * 1024});
  CHECK(small.rounds() == 1);
  CHECK(small.aggregation() == 32);
  CHECK(small.messages_per_round() == 6);
}

TEST_CASE("pat on a switch: steps x 2L + (n-1)/n S/B, in bulk and flow by flow", "[pat][closed_form]") {
  for (const std::uint32_t n : {4U, 6U, 64U}) {
    const Topology topology = build_topology(fmt::format("switch:n={},bw=100Gbps,lat=5us", n));
    Router router(topology);
    for (const std::int64_t size : {std::int64_t{64} * 1024, std::int64_t{256} << 20}) {
      const PatPlan plan(CollectiveOp::all_gather, n, Bytes{size},
                         PatOptions{PatPlan::nccl_chunk_bytes(CollectiveOp::all_gather, Bytes{size})});
      const double steps = plan.step_count(Rank{0});
      const double expected = steps * 10e-6 + (n - 1.0) / n * static_cast<double>(size) / 12.5e9;
      INFO("n=" << n << " S=" << size);
      const CollectiveTiming bulk = time_collective(router, plan);
      CHECK(std::abs(static_cast<double>(bulk.time.ps()) - expected * 1e12) <= steps);
      CHECK(bulk.stats.flows == 0);  // every step uniform and alone on its links
      ExecutorOptions flows;
      flows.bulk = false;
      CHECK(std::llabs(time_collective(router, plan, flows).time.ps() - bulk.time.ps()) <=
            static_cast<std::int64_t>(steps));
    }
  }
}

TEST_CASE("pat refuses what NCCL's PAT does not run", "[pat]") {
  CHECK_THROWS_AS(PatPlan(CollectiveOp::allreduce, 8, Bytes{1024}), InputError);
  CHECK_THROWS_AS(PatPlan(CollectiveOp::broadcast, 8, Bytes{1024}), InputError);
  CHECK_THROWS_AS(PatPlan(CollectiveOp::all_gather, 1, Bytes{1024}), InputError);
  CHECK_THROWS_AS(PatPlan(CollectiveOp::all_gather, 8, Bytes{1024}, PatOptions{0}), InputError);
}
