#pragma once
// The files `syncsim plan` writes, for one job or a job mix: plan.csv and its charts, as one output set
// (output_set.hpp), in syncsim-out/<scenario>-plan/ unless -o names another folder.
#include <filesystem>
#include <string>
#include <vector>

#include "syncsim/planner/plan_report.hpp"

namespace syncsim::app {

// -o, or syncsim-out/<scenario>-plan.
std::filesystem::path plan_dir(const std::string& outdir, const std::string& scenario_name);

// plan.csv and every chart a plan may draw (STEM.svg, .png, .pdf): what check_output_dir checks before the run.
std::vector<std::string> plan_file_names();

// plan.csv and `charts`, all of an earlier plan or all of this one; a chart an earlier plan drew and this one does
// not (cost without --prices now, the slowdown chart of a job mix) goes with the swap. Returns the paths written.
std::vector<std::string> write_plan(const std::filesystem::path& outdir, const std::string& csv,
                                    const std::vector<planner::NamedChart>& charts);

}  // namespace syncsim::app
