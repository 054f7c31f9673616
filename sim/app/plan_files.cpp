#include "plan_files.hpp"

#include <algorithm>
#include <iterator>

#include "chart_files.hpp"
#include "syncsim/core/output_file.hpp"
#include "syncsim/core/output_set.hpp"

namespace syncsim::app {

namespace {

// The charts planner::plan_charts and planner::jobs_slowdown_chart can draw.
constexpr const char* kPlanChartStems[] = {"throughput", "efficiency", "cost", "time_to_target", "slowdown"};

}  // namespace

std::filesystem::path plan_dir(const std::string& outdir, const std::string& scenario_name) {
  return outdir.empty() ? std::filesystem::path("syncsim-out") / (scenario_name + "-plan")
                        : std::filesystem::path(outdir);
}

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

}  // namespace syncsim::app
