#include "plan_progress.hpp"

#include <fmt/format.h>

#include <iostream>
#include <span>

#include "syncsim/core/input_error.hpp"
#include "syncsim/planner/plan_energy.hpp"

namespace syncsim::app {

planner::Plan analysed(std::vector<planner::PlanPoint> results, const planner::PlanGoal& goal,
                       const std::optional<planner::PriceTable>& prices, const Scenario& base) {
  planner::Plan result = planner::analyze_plan(std::move(results), goal, prices ? prices->currency : "");
  const auto& limit = base.cluster.gpu.power_limit;
  planner::add_energy(result, prices ? &*prices : nullptr, limit ? std::optional(limit->value) : std::nullopt);
  return result;
}

std::vector<std::size_t> resume_points(const planner::PlanJournal& journal,
                                       const std::vector<planner::SweepPoint>& points,
                                       std::vector<std::vector<planner::PlanPoint>>& runs, std::size_t per_point,
                                       std::vector<planner::SearchedPoint>* searched) {
  const bool search = searched != nullptr;
  std::vector<std::size_t> left;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto resumed = journal.resumed().find(i);
    if (resumed == journal.resumed().end()) {
      left.push_back(i);
      continue;
    }
    const planner::JournalPoint& j = resumed->second;
    if (j.labels != points[i].labels || j.runs.size() != per_point || j.layout.has_value() != search ||
        j.search.has_value() != search) {
      throw InputError(fmt::format("point {} is not this plan's; delete the file to plan afresh", i),
                       SourceLocation{journal.path().string()});
    }
    std::ranges::copy(j.runs, std::span(runs).subspan(i * per_point, per_point).begin());
    if (search) (*searched)[i] = {.label = *j.layout, .overrides = {}, .report = {}, .stats = *j.search};
  }
  if (left.size() < points.size()) {
    std::cerr << fmt::format("syncsim: resuming: {} of {} points finished before, from {}\n",
                             points.size() - left.size(), points.size(), journal.path().string());
  }
  return left;
}

}  // namespace syncsim::app
