#pragma once
// A single-job plan in progress (docs/planner.md, "Progress, and resuming"): the points an interrupted run of it
// finished, read back from its journal (plan_journal.hpp), and the analysis its partial and final plan.csv share.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "syncsim/planner/layout_search.hpp"
#include "syncsim/planner/plan_analysis.hpp"
#include "syncsim/planner/plan_journal.hpp"
#include "syncsim/planner/price_table.hpp"
#include "syncsim/planner/sweep_point.hpp"
#include "syncsim/scenario/scenario.hpp"

namespace syncsim::app {

// plan.csv is rewritten with the points finished so far at most this often while a plan runs (and not before: a plan
// that takes less leaves an earlier plan's set alone until its own replaces it).
inline constexpr auto kPartialPlanEvery = std::chrono::seconds(10);

// The rows analysed (analyze_plan) and their energy added (add_energy).
planner::Plan analysed(std::vector<planner::PlanPoint> results, const planner::PlanGoal& goal,
                       const std::optional<planner::PriceTable>& prices, const Scenario& base);

// The points the journal has, their rows copied into `runs` (point i's at i x per_point, one per seed) and with a
// search (`searched` given) their layout and search counts into `searched`; returns the indices of the points left
// to run, in order. Says on stderr how many it resumed. Throws InputError at the journal for a point that is not
// this plan's.
std::vector<std::size_t> resume_points(const planner::PlanJournal& journal,
                                       const std::vector<planner::SweepPoint>& points,
                                       std::vector<std::vector<planner::PlanPoint>>& runs, std::size_t per_point,
                                       std::vector<planner::SearchedPoint>* searched);

}  // namespace syncsim::app
