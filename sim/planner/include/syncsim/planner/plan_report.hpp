#pragma once
// What `syncsim plan` prints and writes for a Plan: the ranked table, the knee of every configuration, the
// recommendation, plan.csv, and the three charts (throughput and scaling efficiency vs GPUs per configuration;
// cost vs time-to-train with the Pareto front).
#include <string>
#include <vector>

#include "syncsim/chart/chart.hpp"
#include "syncsim/planner/plan_analysis.hpp"

namespace syncsim::planner {

struct PlanContext {
  std::string scenario;
  std::string currency;  // empty: no prices given
  std::string price_file;
  PlanGoal goal;
  std::int64_t seeds = 1;    // runs per point (--seeds)
  std::string risk = "p50";  // the run that stands for a point (--risk)
  bool layouts = false;      // --layouts auto: each point is its fastest layout, efficiency per GPU of the smallest
  std::vector<std::string> notes = {};  // header lines after the others: the batch held, the layout search's counts
};

// The table and the knees; the recommendation (Plan::recommendation) is printed after them, as the last line.
std::string plan_text(const Plan& plan, const PlanContext& context);
// One row per point, plain CSV (pandas.read_csv reads it as it is): the table's numbers unrounded, the layout, MFU,
// the pipeline bubble's share, tokens/s per GPU and the energy (plan_energy.hpp); with a target loss, three more
// columns: time_to_target_s, cost_to_target, best_loss.
std::string plan_csv(const Plan& plan, const PlanGoal& goal);

struct NamedChart {
  std::string stem;  // file name without extension: throughput, efficiency, cost
  chart::Chart chart;
};
// The cost chart only when prices were given; time_to_target only with a target loss.
std::vector<NamedChart> plan_charts(const Plan& plan, const PlanContext& context);

// A CSV cell: as it is, or quoted (quotes doubled) when it holds a comma or a quote.
std::string csv_cell(const std::string& text);

// "communication 62%: pod0 -> pod1 (network)", "compute 97%".
std::string bottleneck_text(const PlanPoint& point);

}  // namespace syncsim::planner
