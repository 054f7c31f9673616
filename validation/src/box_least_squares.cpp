#include "syncsim/validation/box_least_squares.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace syncsim {

namespace {
// Sweeps stop once no coordinate moves by more than this fraction of its own size (or of 1 near zero); the cap
// bounds the work on a nearly singular problem, where the last digits do not matter to the fit.
constexpr double kTolerance = 1e-12;
constexpr int kMaxSweeps = 20000;
// The active-set method changes one coordinate's status per iteration; a few per unknown is plenty.
constexpr int kMaxActiveSetIterations = 100;
// A pivot this small next to its diagonal marks the free equations singular.
constexpr double kSingular = 1e-13;
}  // namespace

BoxLeastSquares::BoxLeastSquares(std::size_t unknowns)
    : n_(unknowns),
      a_(unknowns * unknowns, 0.0),
      b_(unknowns, 0.0),
      lower_(unknowns, -std::numeric_limits<double>::infinity()),
      upper_(unknowns, std::numeric_limits<double>::infinity()) {}

void BoxLeastSquares::add_row(const std::vector<double>& coefficients, double target, double weight) {
  if (coefficients.size() != n_) throw std::invalid_argument("BoxLeastSquares: row of the wrong length");
  if (!(weight >= 0)) throw std::invalid_argument("BoxLeastSquares: negative weight");
  for (std::size_t i = 0; i < n_; ++i) {
    if (coefficients[i] == 0) continue;
    for (std::size_t j = 0; j < n_; ++j) a_[i * n_ + j] += weight * coefficients[i] * coefficients[j];
    b_[i] += weight * target * coefficients[i];
  }
}

void BoxLeastSquares::set_ridge(std::size_t k, double prior, double strength) {
  if (!(strength >= 0)) throw std::invalid_argument("BoxLeastSquares: negative ridge strength");
  a_[k * n_ + k] += strength;
  b_[k] += strength * prior;
}

void BoxLeastSquares::set_bounds(std::size_t k, double lower, double upper) {
  if (!(lower <= upper)) throw std::invalid_argument("BoxLeastSquares: lower bound above upper bound");
  lower_[k] = lower;
  upper_[k] = upper;
}

std::vector<double> BoxLeastSquares::solve(std::vector<double> start) const {
  if (start.size() != n_) throw std::invalid_argument("BoxLeastSquares: start of the wrong length");
  std::vector<double> x = start;
  for (std::size_t k = 0; k < n_; ++k) x[k] = std::clamp(x[k], lower_[k], upper_[k]);
  if (auto exact = solve_active_set(x)) return *exact;
  return solve_coordinate_descent(x);
}

std::optional<std::vector<double>> BoxLeastSquares::solve_active_set(std::vector<double> x) const {
  // Free: the coordinates the equations solve for; the others sit on a bound (or, untouched, where they are).
  std::vector<bool> free(n_, false);
  for (std::size_t k = 0; k < n_; ++k) free[k] = a_[k * n_ + k] > 0 && lower_[k] < upper_[k];
  for (int iteration = 0; iteration < kMaxActiveSetIterations; ++iteration) {
    const auto target = solve_free(x, free);
    if (!target) return std::nullopt;
    // Walk from x towards the free solution as far as the box allows; a coordinate that meets a bound stays there.
    double step = 1;
    std::size_t blocking = n_;
    for (std::size_t k = 0; k < n_; ++k) {
      if (!free[k]) continue;
      const double d = (*target)[k] - x[k];
      const double room = d > 0 ? upper_[k] - x[k] : d < 0 ? lower_[k] - x[k] : 0;
      if (d != 0 && room / d < step) {
        step = std::max(0.0, room / d);
        blocking = k;
      }
    }
    for (std::size_t k = 0; k < n_; ++k) {
      if (free[k]) x[k] += step * ((*target)[k] - x[k]);
    }
    if (blocking < n_) {
      x[blocking] = (*target)[blocking] > x[blocking] ? upper_[blocking] : lower_[blocking];
      free[blocking] = false;
      continue;
    }
    // Optimal unless a bound coordinate's gradient points into the box: free the one pulling hardest.
    std::size_t release = n_;
    double pull = 0;
    for (std::size_t k = 0; k < n_; ++k) {
      if (free[k] || a_[k * n_ + k] <= 0 || lower_[k] == upper_[k]) continue;
      double gradient = -b_[k];
      for (std::size_t j = 0; j < n_; ++j) gradient += a_[k * n_ + j] * x[j];
      const bool wants_up = gradient < 0 && x[k] < upper_[k];
      const bool wants_down = gradient > 0 && x[k] > lower_[k];
      if ((wants_up || wants_down) && std::abs(gradient) > pull) {
        pull = std::abs(gradient);
        release = k;
      }
    }
    if (release == n_ || pull <= kTolerance * (1 + std::abs(b_[release]))) return x;
    free[release] = true;
  }
  return std::nullopt;
}

// The free coordinates' equations A_FF x_F = b_F - A_FB x_B by Gaussian elimination with partial pivoting;
// nullopt when A_FF is singular.
std::optional<std::vector<double>> BoxLeastSquares::solve_free(const std::vector<double>& x,
                                                               const std::vector<bool>& free) const {
  std::vector<std::size_t> index;
  for (std::size_t k = 0; k < n_; ++k) {
    if (free[k]) index.push_back(k);
  }
  const std::size_t m = index.size();
  std::vector<double> matrix(m * (m + 1));
  for (std::size_t r = 0; r < m; ++r) {
    double rhs = b_[index[r]];
    for (std::size_t j = 0; j < n_; ++j) {
      if (!free[j]) rhs -= a_[index[r] * n_ + j] * x[j];
    }
    for (std::size_t c = 0; c < m; ++c) matrix[r * (m + 1) + c] = a_[index[r] * n_ + index[c]];
    matrix[r * (m + 1) + m] = rhs;
  }
  for (std::size_t col = 0; col < m; ++col) {
    std::size_t pivot = col;
    for (std::size_t r = col + 1; r < m; ++r) {
      if (std::abs(matrix[r * (m + 1) + col]) > std::abs(matrix[pivot * (m + 1) + col])) pivot = r;
    }
    const double scale = std::abs(a_[index[col] * n_ + index[col]]);
    if (std::abs(matrix[pivot * (m + 1) + col]) <= kSingular * scale) return std::nullopt;
    for (std::size_t c = 0; c <= m; ++c) std::swap(matrix[col * (m + 1) + c], matrix[pivot * (m + 1) + c]);
    for (std::size_t r = col + 1; r < m; ++r) {
      const double factor = matrix[r * (m + 1) + col] / matrix[col * (m + 1) + col];
      for (std::size_t c = col; c <= m; ++c) matrix[r * (m + 1) + c] -= factor * matrix[col * (m + 1) + c];
    }
  }
  std::vector<double> out = x;
  for (std::size_t r = m; r-- > 0;) {
    double value = matrix[r * (m + 1) + m];
    for (std::size_t c = r + 1; c < m; ++c) value -= matrix[r * (m + 1) + c] * out[index[c]];
    out[index[r]] = value / matrix[r * (m + 1) + r];
  }
  return out;
}

std::vector<double> BoxLeastSquares::solve_coordinate_descent(std::vector<double> x) const {
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    double largest_move = 0;
    for (std::size_t k = 0; k < n_; ++k) {
      const double diagonal = a_[k * n_ + k];
      if (diagonal <= 0) continue;
      double rest = b_[k];
      for (std::size_t j = 0; j < n_; ++j) {
        if (j != k) rest -= a_[k * n_ + j] * x[j];
      }
      const double next = std::clamp(rest / diagonal, lower_[k], upper_[k]);
      largest_move = std::max(largest_move, std::abs(next - x[k]) / std::max(1.0, std::abs(next)));
      x[k] = next;
    }
    if (largest_move <= kTolerance) break;
  }
  return x;
}

double huber_weight(double residual, double threshold) {
  const double magnitude = std::abs(residual);
  return magnitude <= threshold ? 1.0 : threshold / magnitude;
}

double huber_loss(double residual, double threshold) {
  const double magnitude = std::abs(residual);
  return magnitude <= threshold ? 0.5 * residual * residual : threshold * (magnitude - 0.5 * threshold);
}

}  // namespace syncsim
