// BoxLeastSquares: each problem is stated with its known minimizer before the assertions.
#include <catch2/catch.hpp>
#include <cmath>

#include "syncsim/validation/box_least_squares.hpp"

using namespace syncsim;

TEST_CASE("an unconstrained line fit recovers the line exactly", "[least-squares]") {
  // Points on y = 3 + 2x: rows (1, x) . (a, b) = y, minimizer (a, b) = (3, 2).
  BoxLeastSquares problem(2);
  for (const double x : {0.0, 1.0, 2.0, 5.0}) problem.add_row({1.0, x}, 3.0 + 2.0 * x, 1.0);
  const std::vector<double> solution = problem.solve({0, 0});
  CHECK(solution[0] == Approx(3.0).epsilon(1e-12));
  CHECK(solution[1] == Approx(2.0).epsilon(1e-12));
}

TEST_CASE("a bound that binds holds the coordinate and refits the rest", "[least-squares]") {
  // Points on y = -1 + 2x with the intercept held >= 0: the constrained minimizer puts a = 0 and fits b alone,
  // b = sum(x y) / sum(x^2) over x = 1, 2, 3: (1 + 6 + 15) / 14 = 11/7.
  BoxLeastSquares problem(2);
  for (const double x : {1.0, 2.0, 3.0}) problem.add_row({1.0, x}, -1.0 + 2.0 * x, 1.0);
  problem.set_bounds(0, 0.0, 100.0);
  const std::vector<double> solution = problem.solve({5, 5});
  CHECK(solution[0] == 0.0);
  CHECK(solution[1] == Approx(11.0 / 7.0).epsilon(1e-12));
}

TEST_CASE("an upper bound binds as well as a lower one", "[least-squares]") {
  // y = 4x with slope held <= 3: the minimizer is the bound, 3.
  BoxLeastSquares problem(1);
  for (const double x : {1.0, 2.0}) problem.add_row({x}, 4.0 * x, 1.0);
  problem.set_bounds(0, 0.0, 3.0);
  CHECK(problem.solve({0})[0] == 3.0);
}

TEST_CASE("weights decide between conflicting rows", "[least-squares]") {
  // x = 1 with weight 3 and x = 5 with weight 1: the weighted mean, (3 + 5) / 4 = 2.
  BoxLeastSquares problem(1);
  problem.add_row({1.0}, 1.0, 3.0);
  problem.add_row({1.0}, 5.0, 1.0);
  CHECK(problem.solve({0})[0] == Approx(2.0));
}

TEST_CASE("a ridge settles a direction the rows leave open", "[least-squares]") {
  // One row a + b = 4 cannot tell a from b; a ridge of equal strength towards (0, 0) splits it: a = b = 2 in the
  // limit of a weak ridge (exactly 4/(2 + r) each for strength r).
  BoxLeastSquares problem(2);
  problem.add_row({1.0, 1.0}, 4.0, 1.0);
  problem.set_ridge(0, 0.0, 1e-6);
  problem.set_ridge(1, 0.0, 1e-6);
  const std::vector<double> solution = problem.solve({0, 0});
  CHECK(solution[0] == Approx(2.0).epsilon(1e-5));
  CHECK(solution[1] == Approx(2.0).epsilon(1e-5));
}

TEST_CASE("a coordinate nothing touches keeps its start value", "[least-squares]") {
  BoxLeastSquares problem(2);
  problem.add_row({1.0, 0.0}, 7.0, 1.0);
  const std::vector<double> solution = problem.solve({0, 42});
  CHECK(solution[0] == Approx(7.0));
  CHECK(solution[1] == 42.0);
}

TEST_CASE("the constrained minimum satisfies the KKT conditions on a random problem", "[least-squares]") {
  // Invariant: at the solution, a free coordinate has zero gradient and a bound one a gradient pointing out of the
  // box. Checked on a fixed pseudo-random 5-unknown problem with boxes that bind.
  const std::size_t n = 5;
  BoxLeastSquares problem(n);
  std::vector<std::vector<double>> rows;
  std::vector<double> targets;
  unsigned seed = 12345;
  const auto next = [&] {
    seed = seed * 1103515245u + 12345u;
    return static_cast<double>((seed >> 8) % 2000) / 1000.0 - 1.0;
  };
  for (int r = 0; r < 12; ++r) {
    std::vector<double> row(n);
    for (double& v : row) v = next();
    rows.push_back(row);
    targets.push_back(3 * next());
    problem.add_row(row, targets.back(), 1.0);
  }
  for (std::size_t k = 0; k < n; ++k) problem.set_bounds(k, -0.2, 0.3);
  const std::vector<double> x = problem.solve(std::vector<double>(n, 0.0));
  for (std::size_t k = 0; k < n; ++k) {
    double gradient = 0;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      double residual = -targets[r];
      for (std::size_t j = 0; j < n; ++j) residual += rows[r][j] * x[j];
      gradient += rows[r][k] * residual;
    }
    INFO("coordinate " << k << " at " << x[k] << ", gradient " << gradient);
    if (x[k] == -0.2) {
      CHECK(gradient >= -1e-9);
    } else if (x[k] == 0.3) {
      CHECK(gradient <= 1e-9);
    } else {
      CHECK(std::abs(gradient) < 1e-9);
    }
  }
}

TEST_CASE("Huber's weight is one inside the threshold and falls as 1/|r| outside", "[least-squares]") {
  CHECK(huber_weight(0.03, 0.05) == 1.0);
  CHECK(huber_weight(-0.05, 0.05) == 1.0);
  CHECK(huber_weight(0.5, 0.05) == Approx(0.1));
  CHECK(huber_loss(0.04, 0.05) == Approx(0.0008));
  // Outside: threshold * (|r| - threshold / 2) = 0.05 * (0.5 - 0.025).
  CHECK(huber_loss(-0.5, 0.05) == Approx(0.02375));
}
