#include "syncsim/compute/gemm_fit.hpp"

#include <cmath>
#include <vector>

namespace syncsim {

namespace {
// Shapes whose x differ by less than this (relative) cannot separate t0 from the rate.
constexpr double kDistinctSpread = 1e-6;

struct Point {
  double x = 0;  // F / (peak x shape factors): the time at core 1 without t0
  double t = 0;  // measured
};

double rms_error(const std::vector<Point>& points, double inverse_core, double t0) {
  double sum = 0;
  for (const Point& p : points) {
    const double e = (p.t - inverse_core * p.x - t0) / p.t;
    sum += e * e;
  }
  return std::sqrt(sum / static_cast<double>(points.size()));
}
}  // namespace

std::optional<GemmFit> fit_gemm_core(const KernelModel& model, std::span<const MeasuredGemm> gemms, Precision precision,
                                     double peak, double k_scale) {
  std::vector<Point> points;
  double smallest = 0;
  double largest = 0;
  for (const MeasuredGemm& g : gemms) {
    if (g.precision != precision) continue;
    const double flops = 2 * g.m * g.n * g.k;
    const double factors = model.shape_factors({.m = g.m, .n = g.n, .k = g.k}, k_scale).efficiency;
    const Point p{.x = flops / (peak * factors), .t = flops / g.flops_per_second};
    smallest = points.empty() ? p.x : std::min(smallest, p.x);
    largest = points.empty() ? p.x : std::max(largest, p.x);
    points.push_back(p);
  }
  if (points.empty()) return std::nullopt;
  // Weighted normal equations of t = u x + t0 with weights 1/t².
  double sxx = 0, sx = 0, s1 = 0, sxt = 0, st = 0;
  for (const Point& p : points) {
    const double w = 1 / (p.t * p.t);
    sxx += w * p.x * p.x;
    sx += w * p.x;
    s1 += w;
    sxt += w * p.x * p.t;
    st += w * p.t;
  }
  double u = sxt / sxx;  // t0 = 0
  double t0 = 0;
  const double det = sxx * s1 - sx * sx;
  if (largest > smallest * (1 + kDistinctSpread) && det > 0) {
    const double u2 = (sxt * s1 - sx * st) / det;
    const double t02 = (sxx * st - sx * sxt) / det;
    if (t02 > 0 && u2 > 0) {
      u = u2;
      t0 = t02;
    }
  }
  return GemmFit{.core = 1 / u, .fixed_seconds = t0, .rms_error = rms_error(points, u, t0), .shapes = points.size()};
}

}  // namespace syncsim
