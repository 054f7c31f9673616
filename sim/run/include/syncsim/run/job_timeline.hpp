#pragma once
// The job timeline (docs/faults.md, "Goodput"): one sampled realization of a `reliability:` job's weeks, as
// wall-clock spans, written by `syncsim run` as job_timeline.json (Chrome trace format) and shown by the GUI.
// Its span categories and track names, shared by the writer (sim/run/src/job_timeline_trace.cpp) and the GUI.
#include <string_view>

namespace syncsim::run {

inline constexpr std::string_view kJobTimelineFile = "job_timeline.json";

namespace job_category {
inline constexpr std::string_view training = "job_training";                // training kept: productive and stragglers
inline constexpr std::string_view checkpoint_save = "checkpoint_save";      // the stall on the critical path
inline constexpr std::string_view checkpoint_upload = "checkpoint_upload";  // asynchronous: beside training
inline constexpr std::string_view lost_progress = "lost_progress";  // training since the last completed checkpoint
inline constexpr std::string_view failure = "failure";              // an instant (zero duration)
inline constexpr std::string_view detection = "detection";
inline constexpr std::string_view spare_swap = "spare_swap";
inline constexpr std::string_view repair_wait = "repair_wait";
inline constexpr std::string_view restart = "restart";
inline constexpr std::string_view restore = "restore";
inline constexpr std::string_view spare_repair = "spare_repair";  // a swapped-out node in repair, on a spares lane
}  // namespace job_category

}  // namespace syncsim::run
