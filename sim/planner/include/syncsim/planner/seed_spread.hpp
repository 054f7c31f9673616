#pragma once
// A plan's uncertainty (`syncsim plan --seeds N`): every point run with N seeds — the scenario's seed, then the
// next N - 1 — so that everything the seed draws (stragglers' jitter, failures, the convergence proxy's data)
// varies, and the point's throughput given as p10 / p50 / p90 (nearest rank over the N runs). One run stands for
// the point in the table, the ranking and the recommendation: the one at the quantile asked for (`--risk`, p50 by
// default; p10 plans on the slow tail). Its time-to-train is samples / its throughput, so p10 throughput is the
// p90 time-to-train.
#include <cstdint>
#include <string_view>
#include <vector>

#include "syncsim/planner/plan_analysis.hpp"
#include "syncsim/planner/sweep_point.hpp"

namespace syncsim::planner {

enum class RiskQuantile { p10, p50, p90 };

// "p10", "p50" or "p90"; InputError at --risk otherwise.
RiskQuantile parse_risk(std::string_view text);

// InputError at --seeds for N outside 1..1000.
void check_seeds(std::int64_t seeds);

// Each point N times, the k-th with `seed=first_seed + k` appended to its overrides (k = 0 keeps the scenario's
// seed): point i's k-th run is at index i x N + k. N = 1 returns the points unchanged. InputError at --seeds as
// check_seeds, or for more than kMaxSweepPoints runs.
std::vector<SweepPoint> with_seeds(const std::vector<SweepPoint>& points, std::uint64_t first_seed, std::int64_t seeds);

// The run at `risk` among one point's runs (by throughput), with PlanPoint::spread filled when there are several.
PlanPoint at_risk(std::vector<PlanPoint> runs, RiskQuantile risk);

}  // namespace syncsim::planner
