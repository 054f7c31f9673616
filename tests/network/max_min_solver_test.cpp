// MaxMinSolver: textbook max-min systems with their answers, and the max-min certificate on random systems.
#include "syncsim/network/max_min_solver.hpp"

#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace syncsim {
namespace {

using Links = std::vector<std::uint32_t>;

TEST_CASE("max-min: two flows on one link share it equally", "[max_min]") {
  // One link, C = 10; flows a and b both cross it.  Expected: a = b = C/2 = 5.
  MaxMinSolver solver;
  const auto link = solver.add_link(10);
  const auto a = solver.add_flow(Links{link});
  const auto b = solver.add_flow(Links{link});
  solver.solve();
  CHECK(solver.rate(a) == 5);
  CHECK(solver.rate(b) == 5);
}

TEST_CASE("max-min: a flow limited elsewhere leaves the rest to the other", "[max_min]") {
  // Links A (C = 10) and B (C = 2). Flow x crosses A and B, flow y crosses A only.
  // Expected: B limits x to 2; y takes what is left on A, 10 - 2 = 8.
  MaxMinSolver solver;
  const auto link_a = solver.add_link(10);
  const auto link_b = solver.add_link(2);
  const auto x = solver.add_flow(Links{link_a, link_b});
  const auto y = solver.add_flow(Links{link_a});
  solver.solve();
  CHECK(solver.rate(x) == 2);
  CHECK(solver.rate(y) == 8);
}

TEST_CASE("max-min: parking lot", "[max_min]") {
  // k = 4 links in a row, each C = 1. One long flow crosses all four; one short flow per link crosses only it.
  // Every link carries two flows and all links saturate together at share 1/2.
  // Expected: the long flow and every short flow get C/2 = 0.5 (max-min, unlike proportional fairness, does not
  // penalize the long flow for its length).
  constexpr std::uint32_t k = 4;
  MaxMinSolver solver;
  Links all;
  for (std::uint32_t i = 0; i < k; ++i) all.push_back(solver.add_link(1));
  const auto long_flow = solver.add_flow(all);
  std::vector<std::uint32_t> short_flows;
  for (std::uint32_t i = 0; i < k; ++i) short_flows.push_back(solver.add_flow(Links{all[i]}));
  solver.solve();
  CHECK(solver.rate(long_flow) == 0.5);
  for (const auto f : short_flows) CHECK(solver.rate(f) == 0.5);
}

TEST_CASE("max-min: parking lot with one thin link", "[max_min]") {
  // As above with k = 3 but link 0 has C = 0.4. Link 0 saturates first at 0.2: long flow = short0 = 0.2.
  // Links 1 and 2 (C = 1) then have 0.8 left for their short flows. Expected: 0.2, 0.2, 0.8, 0.8.
  MaxMinSolver solver;
  const Links all{solver.add_link(0.4), solver.add_link(1), solver.add_link(1)};
  const auto long_flow = solver.add_flow(all);
  const auto s0 = solver.add_flow(Links{all[0]});
  const auto s1 = solver.add_flow(Links{all[1]});
  const auto s2 = solver.add_flow(Links{all[2]});
  solver.solve();
  CHECK(solver.rate(long_flow) == Approx(0.2));
  CHECK(solver.rate(s0) == Approx(0.2));
  CHECK(solver.rate(s1) == Approx(0.8));
  CHECK(solver.rate(s2) == Approx(0.8));
}

TEST_CASE("max-min: three flows on two links, the classic example", "[max_min]") {
  // Links L1 (C = 1) and L2 (C = 2). Flow a crosses L1 and L2, b crosses L1, c crosses L2.
  // Fair shares: L1 = 1/2, L2 = 2/2 = 1, so L1 saturates first: a = b = 1/2. L2 has 2 - 1/2 = 3/2 left for c.
  // Expected: a = 0.5, b = 0.5, c = 1.5; both links saturated.
  MaxMinSolver solver;
  const auto l1 = solver.add_link(1);
  const auto l2 = solver.add_link(2);
  const auto a = solver.add_flow(Links{l1, l2});
  const auto b = solver.add_flow(Links{l1});
  const auto c = solver.add_flow(Links{l2});
  solver.solve();
  CHECK(solver.rate(a) == 0.5);
  CHECK(solver.rate(b) == 0.5);
  CHECK(solver.rate(c) == 1.5);
}

TEST_CASE("max-min: a link need not saturate when all its flows are limited elsewhere", "[max_min]") {
  // L1 (C = 1): flows 0, 1.  L2 (C = 3): flows 0, 2.  L3 (C = 1.5): flows 2, 3.
  // Shares: L1 = 0.5, L2 = 1.5, L3 = 0.75. L1 first: f0 = f1 = 0.5. Then L3 (0.75 < L2's 2.5): f2 = f3 = 0.75.
  // Expected: 0.5, 0.5, 0.75, 0.75; L2 carries 1.25 of its 3.
  MaxMinSolver solver;
  const auto l1 = solver.add_link(1);
  const auto l2 = solver.add_link(3);
  const auto l3 = solver.add_link(1.5);
  solver.add_flow(Links{l1, l2});
  solver.add_flow(Links{l1});
  solver.add_flow(Links{l2, l3});
  solver.add_flow(Links{l3});
  solver.solve();
  CHECK(solver.rate(0) == 0.5);
  CHECK(solver.rate(1) == 0.5);
  CHECK(solver.rate(2) == 0.75);
  CHECK(solver.rate(3) == 0.75);
}

TEST_CASE("max-min: a flow on no link is unconstrained, clear() starts afresh", "[max_min]") {
  MaxMinSolver solver;
  solver.add_link(1);
  const auto free_flow = solver.add_flow(Links{});
  solver.solve();
  CHECK(std::isinf(solver.rate(free_flow)));

  // The same object, a new system: one link of C = 3 with three flows. Expected: 1 each.
  solver.clear();
  const auto link = solver.add_link(3);
  for (int i = 0; i < 3; ++i) solver.add_flow(Links{link});
  solver.solve();
  REQUIRE(solver.flow_count() == 3);
  for (std::uint32_t f = 0; f < 3; ++f) CHECK(solver.rate(f) == 1);
}

TEST_CASE("max-min: random systems satisfy capacity and the max-min certificate", "[max_min][property]") {
  // For every random system: (1) on every link the rates sum to at most C; (2) every flow crosses a saturated
  // link on which no flow has a larger rate. Together these characterize the unique max-min allocation.
  std::mt19937_64 rng(20240611);
  for (int trial = 0; trial < 200; ++trial) {
    const auto link_count = std::uniform_int_distribution<std::uint32_t>(1, 12)(rng);
    const auto flow_count = std::uniform_int_distribution<std::uint32_t>(1, 30)(rng);
    MaxMinSolver solver;
    std::vector<double> capacity;
    for (std::uint32_t l = 0; l < link_count; ++l) {
      capacity.push_back(std::uniform_real_distribution<double>(0.5, 100)(rng));
      solver.add_link(capacity.back());
    }
    std::vector<Links> routes;
    for (std::uint32_t f = 0; f < flow_count; ++f) {
      Links route;
      for (std::uint32_t l = 0; l < link_count; ++l) {
        if (std::bernoulli_distribution(0.3)(rng)) route.push_back(l);
      }
      if (route.empty()) route.push_back(std::uniform_int_distribution<std::uint32_t>(0, link_count - 1)(rng));
      routes.push_back(route);
      solver.add_flow(route);
    }
    solver.solve();

    std::vector<double> load(link_count, 0.0);
    std::vector<double> max_rate(link_count, 0.0);
    for (std::uint32_t f = 0; f < flow_count; ++f) {
      REQUIRE(solver.rate(f) > 0);
      for (const auto l : routes[f]) {
        load[l] += solver.rate(f);
        max_rate[l] = std::max(max_rate[l], solver.rate(f));
      }
    }
    for (std::uint32_t l = 0; l < link_count; ++l) REQUIRE(load[l] <= capacity[l] * (1 + 1e-9));
    for (std::uint32_t f = 0; f < flow_count; ++f) {
      bool has_bottleneck = false;
      for (const auto l : routes[f]) {
        const bool saturated = load[l] >= capacity[l] * (1 - 1e-9);
        has_bottleneck = has_bottleneck || (saturated && solver.rate(f) >= max_rate[l] * (1 - 1e-9));
      }
      REQUIRE(has_bottleneck);
    }
  }
}

}  // namespace
}  // namespace syncsim
