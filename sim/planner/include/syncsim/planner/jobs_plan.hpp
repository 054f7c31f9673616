#pragma once
// `syncsim plan` over a job mix (docs/planner.md, "Several jobs"): a scenario with `jobs:` run on every candidate
// fabric (`--networks`) under every placement (`--placements`), all jobs together at each point, ranked.
//
//   point (fabric f, placement p)  = run_jobs(the scenario with cluster.topology = f, placement = p)
//   worst slowdown                 = max over jobs j of iteration_time(j) / alone_iteration_time(j)
//   total throughput               = sum over jobs j of samples per iteration(j) / iteration_time(j)
//   $/hour                         = the fabric's GPUs x (gpu_hour + network_gpu_hour)      (price_table.hpp)
//   $ per million samples          = $/hour / (total throughput x 3600) x 1e6               (plan_analysis.hpp)
//
// Ranking (--rank-by): `worst-slowdown`, the lowest first (the mix whose unluckiest job loses least to the others;
// ties to the lower $ per million samples when priced, else to the higher total throughput), or `throughput`, the
// highest total first (ties to the lower worst slowdown). Points whose first key is equal (to 1e-9 of it) share a
// rank. A point where a job does not fit (too few GPUs on the fabric, a placement that leaves it no room) is kept,
// ranked after every point that ran, with the reason naming the job; it is never an abort.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/training/jobs_report.hpp"

namespace syncsim::planner {

enum class JobsRankBy { worst_slowdown, throughput };
std::string_view to_string(JobsRankBy rank_by);
// Throws InputError at `--rank-by` for anything but worst-slowdown or throughput.
JobsRankBy parse_jobs_rank_by(std::string_view text);

// Throws InputError at `--placements` for an empty list or item, an unknown policy, or one given twice.
std::vector<std::string> parse_placements(std::string_view text);

// One job at one point: what run_jobs reported, and its samples per second.
struct JobsPlanJob {
  std::string name;
  std::int64_t gpus = 0;
  double iteration_time_us = 0;
  double alone_iteration_time_us = 0;
  double slowdown = 0;
  double samples_per_s = 0;
};

struct JobsPlanPoint {
  std::string network;    // a --networks label, or "scenario"
  std::string placement;  // a policy name, or the scenario's own ("explicit" for node lists)
  std::int64_t fabric_gpus = 0;
  std::vector<JobsPlanJob> jobs = {};  // empty when the point did not run
  std::string not_run = {};            // why it did not run (the job that does not fit, by name); empty: it ran
  // Filled by rank_jobs_plan:
  double worst_slowdown = 0;
  std::string worst_job = {};
  double mean_slowdown = 0;
  double total_samples_per_s = 0;
  std::optional<double> price_per_hour = {};  // the caller's (price_table.hpp's cluster_price_per_hour)
  std::optional<double> price_per_million_samples = {};
  std::int64_t rank = 0;  // 1 the best; equal first keys share a rank; 0: did not run
};

// The point's jobs from run_jobs' report: the numbers report.json prints.
std::vector<JobsPlanJob> plan_jobs_of(const JobsReport& report);

struct JobsPlan {
  std::vector<JobsPlanPoint> points;  // ranked: the chosen point first (when one ran)
  JobsRankBy rank_by = JobsRankBy::worst_slowdown;
  std::string recommendation = {};  // one sentence
};

JobsPlan rank_jobs_plan(std::vector<JobsPlanPoint> points, JobsRankBy rank_by, const std::string& currency);

}  // namespace syncsim::planner
