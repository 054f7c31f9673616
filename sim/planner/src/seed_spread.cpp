#include "syncsim/planner/seed_spread.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "syncsim/core/input_error.hpp"

namespace syncsim::planner {

namespace {

constexpr std::int64_t kMaxSeeds = 1000;

// Nearest rank: the smallest value with at least q of the runs at or below it.
std::size_t nearest_rank(std::size_t n, double q) {
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(n)));
  return std::clamp<std::size_t>(rank, 1, n) - 1;
}

double quantile_of(RiskQuantile risk) {
  switch (risk) {
    case RiskQuantile::p10:
      return 0.1;
    case RiskQuantile::p50:
      return 0.5;
    case RiskQuantile::p90:
      return 0.9;
  }
  return 0.5;
}

}  // namespace

RiskQuantile parse_risk(std::string_view text) {
  if (text == "p10") return RiskQuantile::p10;
  if (text == "p50") return RiskQuantile::p50;
  if (text == "p90") return RiskQuantile::p90;
  throw InputError(fmt::format("expected p10, p50 or p90, got '{}'", text), SourceLocation{"--risk"});
}

void check_seeds(std::int64_t seeds) {
  if (seeds < 1 || seeds > kMaxSeeds) {
    throw InputError(fmt::format("expected a count from 1 to {}, got {}", kMaxSeeds, seeds), SourceLocation{"--seeds"});
  }
}

std::vector<SweepPoint> with_seeds(const std::vector<SweepPoint>& points, std::uint64_t first_seed,
                                   std::int64_t seeds) {
  check_seeds(seeds);
  if (seeds == 1) return points;
  if (points.size() > kMaxSweepPoints / static_cast<std::size_t>(seeds)) {
    throw InputError(fmt::format("{} points x {} seeds are more than {} runs", points.size(), seeds, kMaxSweepPoints),
                     SourceLocation{"--seeds"});
  }
  std::vector<SweepPoint> out;
  out.reserve(points.size() * static_cast<std::size_t>(seeds));
  for (const SweepPoint& p : points) {
    for (std::int64_t k = 0; k < seeds; ++k) {
      SweepPoint run = p;
      run.index = out.size();
      if (k > 0) run.overrides.push_back(fmt::format("seed={}", first_seed + static_cast<std::uint64_t>(k)));
      out.push_back(std::move(run));
    }
  }
  return out;
}

PlanPoint at_risk(std::vector<PlanPoint> runs, RiskQuantile risk) {
  if (runs.empty()) throw InputError("plan: a point without runs");
  if (runs.size() == 1) return std::move(runs.front());
  // Stable: equal throughputs keep seed order, so the chosen run does not depend on the sort's whims.
  std::stable_sort(runs.begin(), runs.end(),
                   [](const PlanPoint& a, const PlanPoint& b) { return a.samples_per_s < b.samples_per_s; });
  const std::size_t n = runs.size();
  const SeedSpread spread{.seeds = static_cast<std::int64_t>(n),
                          .p10 = runs[nearest_rank(n, 0.1)].samples_per_s,
                          .p50 = runs[nearest_rank(n, 0.5)].samples_per_s,
                          .p90 = runs[nearest_rank(n, 0.9)].samples_per_s};
  PlanPoint out = std::move(runs[nearest_rank(n, quantile_of(risk))]);
  out.spread = spread;
  return out;
}

}  // namespace syncsim::planner
