#pragma once
// `syncsim run` on a scenario with several jobs (docs/jobs.md): the per-job table it prints.
#include <filesystem>

#include "syncsim/training/jobs_report.hpp"

namespace syncsim::app {

void print_jobs_summary(const JobsReport& report, const std::filesystem::path& outdir);

}  // namespace syncsim::app
