#pragma once
// `syncsim plan JOBS.yaml --networks 'a=SPEC;b=SPEC' --placements packed,spread`: a scenario with `jobs:` planned
// over candidate fabrics and placements (docs/planner.md, "Several jobs"; planner/jobs_plan.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "syncsim/scenario/jobs_config.hpp"

namespace syncsim::app {

struct JobsPlanOptions {
  std::string scenario;
  std::vector<std::string> networks;      // --networks, as the single-job plan takes them; none: the scenario's
  std::optional<std::string> placements;  // --placements packed,spread,...; none: the scenario's own
  std::string rank_by = "worst-slowdown";
  std::string prices;
  std::string outdir;
  std::optional<std::int64_t> threads;
  std::vector<std::string> single_job_flags = {};  // flags given that plan one job only: refused here
};

// Checks the flags (InputError at the flag), runs every (network, placement) point on threads, prints the table and
// the recommendation, writes plan.csv and the slowdown chart. Returns the exit code.
int plan_jobs(const JobsPlanOptions& options, const JobsScenario& scenario);

}  // namespace syncsim::app
