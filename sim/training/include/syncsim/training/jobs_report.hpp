#pragma once
// JobsReport: what a scenario with several jobs found (docs/jobs.md) — each job's nodes, its iteration time beside
// the same job alone on the same nodes, the links it shares with other jobs, and the window it was measured over.
// report.json holds it (jobs_json) in place of a single job's TrainingReport.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "syncsim/core/sim_time.hpp"

namespace syncsim {

// One link more than one job (or a job and background traffic) crossed: how much of it each used in the window.
struct SharedLinkReport {
  std::string from;  // topology node names
  std::string to;
  std::vector<std::string> with;  // the other jobs on it ("background" for background traffic)
  // Per job on the link, the job's bytes on it in its measured iterations over bandwidth x window.
  std::vector<std::pair<std::string, double>> utilization_by_job;
};

// One directed link a job's AllReduce crosses, for the GUI's machine view (not in report.json): the link (a LinkId's
// value in the scenario's topology), the job's mean share of it (utilization_by_job's figure), and whether another
// job's or the background's traffic crosses it too (the links shared_link_count counts).
struct JobLinkUse {
  std::uint32_t link = 0;
  double utilization = 0;
  bool shared = false;
  bool background = false;  // background traffic crosses it
};

// One iteration of a job as the together-run ran it: its compute from start to compute_end, its AllReduce to end.
struct JobIterationRun {
  SimTime start;
  SimTime compute_end;
  SimTime end;
};

struct JobReport {
  std::string name;
  std::int64_t gpus = 0;
  std::vector<std::int64_t> nodes;  // node indices as placement numbers them (docs/jobs.md)
  SimTime offset;                   // when the job's first iteration starts
  SimTime compute;  // before the AllReduce: one GPU's iteration; a layout's engine iteration less its exposed data time
  double gradient_bytes = 0;                   // its data-parallel AllReduce per iteration, per rank
  std::uint32_t channels = 0;                  // its ring channels, over all its data-parallel groups
  std::string shared_traffic;                  // which of its traffic runs on the shared fabric (docs/jobs.md)
  std::int64_t iterations = 0;                 // measured, inside the window
  SimTime iteration_time;                      // mean of the measured iterations
  SimTime alone_iteration_time;                // the same job alone on the same nodes, nothing else on the fabric
  double slowdown = 0;                         // iteration_time / alone_iteration_time
  std::int64_t samples_per_iteration = 0;      // its global batch: data-parallel ranks x batch x micro-batches
  std::int64_t shared_link_count = 0;          // links shared with another job or background traffic
  std::vector<SharedLinkReport> shared_links;  // the busiest of them, at most kSharedLinksReported
  // For the trace (jobs_trace), not in report.json: its GPUs (cluster GPU indices, rank order) and its iterations in
  // the together-run, from its offset to the window's end (at most kJobIterationsRecorded).
  std::vector<std::int64_t> gpu_indices = {};
  std::vector<JobIterationRun> runs = {};
  // For the GUI, not in report.json: every link its AllReduce crosses, in LinkId order.
  std::vector<JobLinkUse> links = {};
};

inline constexpr std::size_t kJobIterationsRecorded = 10'000;

struct JobsReport {
  std::string scenario;
  std::int64_t workers = 0;  // the GPUs of all jobs
  std::string placement;     // packed, rail, spread, random or explicit
  std::int64_t window_iterations = 0;
  SimTime window_start;     // every job has started
  SimTime window_end;       // every job has finished window_iterations iterations started in the window
  std::string slowest_job;  // the last to finish its window_iterations
  std::int64_t background_flows = 0;
  std::vector<JobReport> jobs;
};

inline constexpr std::size_t kSharedLinksReported = 5;

// samples_per_iteration / iteration_time: the job's throughput beside the others (0 before it ran).
double samples_per_s(const JobReport& job);

nlohmann::ordered_json jobs_json(const JobsReport& report);

}  // namespace syncsim
