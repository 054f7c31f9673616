#pragma once
// The sharded engines' per-rank times under stragglers, and what stragglers cost (every engine of alike ranks). The
// engine runs the slowest rank's timeline (sharded_run.hpp: every collective joins every rank); a rank whose group
// computes faster computes for less of it and waits the rest for the slowest, which the report counts as its straggler
// wait.
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "syncsim/core/sim_time.hpp"
#include "syncsim/training/sharded_run.hpp"
#include "syncsim/training/straggler_model.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::run {

struct RankPace {
  SimTime compute;         // the rank's forward and backward at its group's factors
  SimTime straggler_wait;  // the slowest rank's compute less the rank's own
};

// Per rank of `ranks`, groups of `group` consecutive ranks computing at their slowest member's factor.
std::vector<RankPace> rank_paces(const StragglerModel& stragglers, std::int64_t group, std::int64_t ranks,
                                 std::int64_t iterations, const ShardedRunResult& result);

// The slowest rank's factor per iteration, for ShardedRunSetup::slowest; empty without stragglers.
std::function<double(std::int64_t)> slowest_pace(const StragglerModel& stragglers, std::int64_t ranks);

// The stragglers' cause: what a run of `total` loses per iteration against the same run at nominal speed.
CauseReport straggler_cause(SimTime total, SimTime nominal_total, std::int64_t iterations);

// The sharded engine's run and its stragglers' cause (the run again without them; nullopt without stragglers).
std::optional<CauseReport> sharded_straggler_cause(const ShardedRunSetup& setup, const ShardedRunResult& result);

}  // namespace syncsim::run
