#pragma once
// The files `syncsim plan` writes, for one job or a job mix: plan.csv and its charts, as one output set
// (output_set.hpp), in syncsim-out/<scenario>-plan/ unless -o names another folder.
#include <filesystem>
#include <string>
#include <vector>

#include "syncsim/planner/plan_report.hpp"

namespace syncsim::app {

// The journal of a plan's finished points (plan_journal.hpp), beside plan.csv.
inline constexpr const char* kPlanJournal = "plan.resume.jsonl";

// -o, or syncsim-out/<scenario>-plan.
std::filesystem::path plan_dir(const std::string& outdir, const std::string& scenario_name);

// plan.csv, the journal and every chart a plan may draw (STEM.svg, .png, .pdf): what check_output_dir checks before
// the run.
std::vector<std::string> plan_file_names();

// plan.csv and `charts`, all of an earlier plan or all of this one; a chart an earlier plan drew and this one does
// not (cost without --prices now, the slowdown chart of a job mix) goes with the swap. Returns the paths written.
std::vector<std::string> write_plan(const std::filesystem::path& outdir, const std::string& csv,
                                    const std::vector<planner::NamedChart>& charts);

// plan.csv with the points finished so far, while the plan runs (each write whole, by a rename). An earlier plan's
// charts go with the first: the folder holds an earlier plan's set, this plan's rows so far, or this plan's set.
void write_partial_plan(const std::filesystem::path& outdir, const std::string& csv);

}  // namespace syncsim::app
