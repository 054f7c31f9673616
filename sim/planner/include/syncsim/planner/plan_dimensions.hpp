#pragma once
// The checkpoint interval and the hot spare count as plan dimensions (docs/planner.md, "Failures"):
//
//   --checkpoint-intervals optimal,10min,30min,2h    optimal: each point's Daly optimum for its own MTBF and save
//   --spares 0,16,64                                 hot spare nodes, paid beside the job's
//
// Neither changes a point's iteration, memory or checkpoint size, so each point (GPU type, network, count, layout)
// is simulated once and its job assessed under every (interval, spares) pair, intervals outer and spares inner
// (run/goodput_job.hpp's job_goodputs): one row per pair. The analysis (plan_analysis.hpp) lets the best pair of a
// point stand for it; the others stay in plan.csv. Without the flags a point has one pair, the scenario's own, and
// the plan is the one it was before them.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/planner/plan_analysis.hpp"
#include "syncsim/run/goodput_job.hpp"
#include "syncsim/scenario/scenario.hpp"

namespace syncsim::planner {

struct CheckpointChoice {
  std::string text;               // as given: "optimal", "30min"
  std::optional<double> seconds;  // nullopt: the point's Daly optimum
};

struct PlanDimensions {
  std::vector<CheckpointChoice> intervals;  // empty: the scenario's own interval
  std::vector<std::int64_t> spares;         // empty: the scenario's reliability.spares

  bool given() const { return !intervals.empty() || !spares.empty(); }
  // The pairs' policies, intervals outer, spares inner; one JobPolicy{} (the scenario's) without the flags.
  std::vector<run::JobPolicy> policies() const;
  // The plan header's words: "checkpoint intervals optimal, 30min x hot spare nodes 0, 16: ...".
  std::string describe() const;
};

// A comma-separated list of `optimal` and durations (10min, 2h). InputError at --checkpoint-intervals for an empty
// list or item, an unknown word, a duration without its unit, zero or below, longer than kMaxCheckpointInterval, or
// one interval given twice (10min and 600s are one).
std::vector<CheckpointChoice> parse_checkpoint_intervals(std::string_view text);
// A comma-separated list of whole numbers of hot spare nodes, 0 to kMaxSpareNodes. InputError at --spares for an
// empty list or item, a number that is not whole, out of range, or given twice.
std::vector<std::int64_t> parse_spares(std::string_view text);

// A year: longer than any training job on record (Llama 3 405B pre-trained in 54 days), far past any optimum.
inline constexpr double kMaxCheckpointInterval = 365.0 * 86400;
// The plan's largest GPU count (plan_grid.cpp): a spare node holds at least one GPU.
inline constexpr std::int64_t kMaxSpareNodes = 1 << 20;

// What the flags need of the plan: InputError at the first flag given when the scenario has no `reliability:`
// section, or with --no-failures; without a sample count (the job is the scenario's reliability.duration), at
// --checkpoint-intervals for an interval longer than that job.
void check_dimensions(const PlanDimensions& dims, const Scenario& base, bool no_failures, bool samples_given);

// The point's jobs, one per pair (dims.policies()): InputError at --checkpoint-intervals, naming `where` (the
// point), for a fixed interval shorter than the point's checkpoint save or longer than its job.
void check_point_jobs(const PlanDimensions& dims, const std::vector<run::JobGoodput>& jobs, const std::string& where);

// The point's rows: `point` (priced, without failures) once per job, with its failures (add_failures) and, with
// the flags, its pair (PlanPoint::pair, spares).
std::vector<PlanPoint> pair_rows(const PlanPoint& point, const std::vector<run::JobGoodput>& jobs,
                                 const PlanDimensions& dims);

}  // namespace syncsim::planner
