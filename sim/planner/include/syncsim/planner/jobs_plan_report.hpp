#pragma once
// What `syncsim plan` prints and writes for a job mix (jobs_plan.hpp): the ranked table, plan.csv and the slowdown
// chart (each point's worst job's slowdown against the mix's total throughput, one series per fabric, each point
// labelled with its placement).
#include <string>
#include <vector>

#include "syncsim/chart/chart.hpp"
#include "syncsim/planner/jobs_plan.hpp"

namespace syncsim::planner {

struct JobsPlanContext {
  std::string scenario;
  std::vector<std::string> job_names = {};  // in the scenario's order, as every point lists them
  std::int64_t job_gpus = 0;                // all jobs together
  std::string currency;                     // empty: no prices given
  std::string price_file;
  std::string fingerprint;  // plan.csv's last column (16 hex digits)
};

// The header, the table (one row per point, the chosen one `*1`, points that did not run last with their reason)
// and the chosen point's jobs; the recommendation (JobsPlan::recommendation) is printed after them.
std::string jobs_plan_text(const JobsPlan& plan, const JobsPlanContext& context);

// One row per point, plain CSV (pandas.read_csv reads it as it is): rank (empty for a point that did not run),
// network, placement, fabric_gpus, job_gpus, worst_slowdown, worst_job, mean_slowdown, total_samples_per_s,
// price_per_hour, price_per_million_samples, then per job JOB_iteration_time_us, JOB_alone_iteration_time_us,
// JOB_slowdown, JOB_samples_per_s, then not_run and plan_fingerprint. Numbers unrounded beyond report.json's.
std::string jobs_plan_csv(const JobsPlan& plan, const JobsPlanContext& context);

chart::Chart jobs_slowdown_chart(const JobsPlan& plan);

}  // namespace syncsim::planner
