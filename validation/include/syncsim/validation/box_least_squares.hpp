#pragma once
// Bounded, regularized, weighted linear least squares — the inner solve of the calibration fit.
//
//   minimize   sum_i w_i (a_i . x - t_i)^2  +  sum_k r_k (x_k - p_k)^2
//   subject to lo_k <= x_k <= hi_k
//
// The rows are few-parameter (the calibration has at most 7 unknowns per regime), so the problem is solved on its
// normal equations A x = b (A = sum w a a^T + diag(r), b = sum w t a + r p) by an active-set method (as
// Lawson-Hanson's and Stark-Parker's BVLS): solve for the free coordinates, walk towards that solution until a
// coordinate meets a bound and fix it there, and once the walk completes free the bound coordinate whose gradient
// points furthest into the box, until none does (the KKT conditions). Should the free equations be singular, it
// falls back to projected coordinate descent, x_k <- clamp((b_k - sum_{j != k} A_kj x_j) / A_kk, lo_k, hi_k), which
// converges to the same minimum, only slowly when unknowns are nearly collinear (Luo and Tseng, 1992). A coordinate
// with A_kk = 0 (no row and no ridge touch it) keeps its start value.
//
//   BoxLeastSquares problem(3);
//   problem.add_row({1, 2, 0}, 5.0, 1.0);
//   problem.set_bounds(0, 0.0, 10.0);
//   const std::vector<double> x = problem.solve({0, 0, 0});
#include <cstddef>
#include <optional>
#include <vector>

namespace syncsim {

class BoxLeastSquares {
 public:
  explicit BoxLeastSquares(std::size_t unknowns);

  void add_row(const std::vector<double>& coefficients, double target, double weight);
  // Pulls x_k towards `prior` with strength `strength` (>= 0); keeps an unidentifiable direction where it was.
  void set_ridge(std::size_t k, double prior, double strength);
  void set_bounds(std::size_t k, double lower, double upper);

  // The minimizer, starting from `start` (clamped into the box).
  std::vector<double> solve(std::vector<double> start) const;

 private:
  std::optional<std::vector<double>> solve_active_set(std::vector<double> x) const;
  std::optional<std::vector<double>> solve_free(const std::vector<double>& x, const std::vector<bool>& free) const;
  std::vector<double> solve_coordinate_descent(std::vector<double> x) const;

  std::size_t n_;
  std::vector<double> a_;  // n x n, row-major
  std::vector<double> b_;
  std::vector<double> lower_;
  std::vector<double> upper_;
};

// The IRLS weight of Huber's loss for a residual: 1 inside +-threshold, threshold / |residual| outside, so a far
// outlier pulls with a constant force instead of one growing with its distance.
double huber_weight(double residual, double threshold);
// Huber's loss itself: r^2 / 2 inside, threshold (|r| - threshold / 2) outside.
double huber_loss(double residual, double threshold);

}  // namespace syncsim
