#pragma once
// What `syncsim plan` writes to its folder (docs/planner.md): plan.csv and the charts as one set at the end, plan.csv
// with the points finished so far while it runs, and the journal an interrupted plan resumes from
// (plan_journal.hpp).
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "syncsim/planner/layout_search.hpp"
#include "syncsim/planner/plan_analysis.hpp"
#include "syncsim/planner/plan_journal.hpp"
#include "syncsim/planner/plan_report.hpp"
#include "syncsim/planner/price_table.hpp"
#include "syncsim/planner/sweep_point.hpp"
#include "syncsim/scenario/scenario.hpp"

namespace syncsim::app {

// The journal of the points finished so far, beside plan.csv.
inline constexpr const char* kPlanJournal = "plan.resume.jsonl";
// plan.csv is rewritten with the points finished so far at most this often while a plan runs (and not before: a plan
// that takes less leaves an earlier plan's set alone until its own replaces it).
inline constexpr auto kPartialPlanEvery = std::chrono::seconds(10);

// Every file a plan may write in its folder (for check_output_dir).
std::vector<std::string> plan_file_names();

// plan.csv and the charts are one set (output_set.hpp): all of an earlier plan or all of this one. A chart an
// earlier plan drew and this one does not (cost without --prices now) goes with the swap. Returns the paths written.
std::vector<std::string> write_plan(const std::filesystem::path& outdir, const std::string& csv,
                                    const std::vector<planner::NamedChart>& charts);

// plan.csv with the points finished so far, while the plan runs (each write whole, by a rename). An earlier plan's
// charts go with the first: the folder holds an earlier plan's set, this plan's rows so far, or this plan's set.
void write_partial_plan(const std::filesystem::path& outdir, const std::string& csv);

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
