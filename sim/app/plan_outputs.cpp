#include "plan_outputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <iterator>
#include <span>

#include "chart_files.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/output_file.hpp"
#include "syncsim/core/output_set.hpp"
#include "syncsim/planner/plan_energy.hpp"

namespace syncsim::app {

namespace {

// The charts planner::plan_charts can draw.
constexpr const char* kPlanChartStems[] = {"throughput", "efficiency", "cost", "time_to_target"};

}  // namespace

std::vector<std::string> plan_file_names() {
  std::vector<std::string> files{"plan.csv", kPlanJournal};
  for (const char* stem : kPlanChartStems) std::ranges::copy(chart_file_names(stem), std::back_inserter(files));
  return files;
}

std::vector<std::string> write_plan(const std::filesystem::path& outdir, const std::string& csv,
                                    const std::vector<planner::NamedChart>& charts) {
  OutputSet set(outdir);
  set.add("plan.csv", [&](std::ostream& out) { out << csv; });
  std::vector<std::string> written{(outdir / "plan.csv").string()};
  for (const planner::NamedChart& chart : charts) {
    add_chart_files(set, chart.stem, chart.chart);
    for (const std::string& name : chart_file_names(chart.stem)) written.push_back((outdir / name).string());
  }
  for (const char* stem : kPlanChartStems) {
    const bool drawn = std::any_of(charts.begin(), charts.end(), [&](const auto& c) { return c.stem == stem; });
    if (!drawn) remove_chart_files(set, stem);
  }
  set.commit();
  return written;
}

planner::Plan analysed(std::vector<planner::PlanPoint> results, const planner::PlanGoal& goal,
                       const std::optional<planner::PriceTable>& prices, const Scenario& base) {
  planner::Plan result = planner::analyze_plan(std::move(results), goal, prices ? prices->currency : "");
  const auto& limit = base.cluster.gpu.power_limit;
  planner::add_energy(result, prices ? &*prices : nullptr, limit ? std::optional(limit->value) : std::nullopt);
  return result;
}

void write_partial_plan(const std::filesystem::path& outdir, const std::string& csv) {
  std::filesystem::create_directories(outdir);
  write_file_atomically(outdir / "plan.csv", [&](std::ostream& out) { out << csv; });
  for (const char* stem : kPlanChartStems) {
    for (const std::string& name : chart_file_names(stem)) {
      std::error_code ec;
      std::filesystem::remove(outdir / name, ec);
    }
  }
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
