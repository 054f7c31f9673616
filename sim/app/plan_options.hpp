#pragma once
// `syncsim plan`'s flags as given (plan_command.cpp reads and checks them), and the fingerprint of those that change
// what a point's runs give (plan_journal.hpp: a journal written under other flags is not resumed).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace syncsim::app {

struct PlanOptions {
  std::string scenario;
  std::string gpus;
  std::vector<std::string> gpu_types;
  std::vector<std::string> networks;
  std::string prices;
  std::optional<double> target_throughput;
  std::string time_to_train;
  std::string samples;
  std::string tokens;
  double min_efficiency = 0.8;
  std::string objective = "throughput";
  std::optional<double> target_loss;
  std::string outdir;
  std::optional<std::int64_t> threads;  // absent: all cores
  std::int64_t seeds = 1;
  std::string risk = "p50";
  std::string layouts = "none";  // none: the scenario's layout; auto: searched per count (layout_search.hpp)
  std::optional<std::int64_t> global_batch;  // --global-batch: samples per iteration held at every count
  double memory_headroom = 0;
  std::int64_t max_simulations = 8;
  bool strict_calibration = false;
  bool no_failures = false;  // --no-failures: a reliability section stays out of time-to-train (plan_failures.hpp)
  std::optional<std::string> checkpoint_intervals;  // plan dimensions (plan_dimensions.hpp)
  std::optional<std::string> spares;
  // A scenario with jobs: (plan_jobs.hpp): the placements and the ranking; the flags given that plan one job only.
  std::optional<std::string> placements;
  std::optional<std::string> rank_by;
  std::vector<std::string> single_job_flags;
};

// The scenario file's content and the flags a point's runs depend on. The ranking flags (--min-efficiency,
// --target-throughput, --time-to-train, --risk) only rank what ran: left out, so they may change between the runs.
std::string plan_fingerprint(const PlanOptions& o);

}  // namespace syncsim::app
