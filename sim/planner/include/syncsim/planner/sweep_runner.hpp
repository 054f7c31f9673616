#pragma once
// run_points: simulate sweep points on a pool of threads.
//
//   SweepRunner runner("bert.yaml", points, 4);
//   runner.run(pending, [&](std::size_t index, const TrainingReport& r) { ... });  // called under a lock
//
// Every point loads the scenario file with its own overrides and runs run::run_scenario; the points of one call
// share one workspace (run/workspace.hpp: the collectives already simulated, which do not change any result) and
// nothing else, so threads only hand out work. Results arrive in completion order through the callback,
// which runs under the runner's lock: callers store them by point index, and it is that index, not the arrival
// order, that orders the output.
//
// The first error stops the pool (points already running finish, no new one starts) and is rethrown by run();
// an InputError from a point is prefixed with the point's overrides, so the user can find it.
#include <atomic>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <vector>

#include "syncsim/planner/sweep_point.hpp"
#include "syncsim/run/workspace.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::planner {

using PointDone = std::function<void(std::size_t index, const TrainingReport& report)>;

// Runs `points[i]` for every i in `which` on `threads` threads (at least 1). When `cancel` is given and becomes
// true, no new point starts (points already running finish and are reported) and run_points returns normally: the
// caller knows it asked, and which points it got (syncsim-gui's Cancel).
void run_points(const std::filesystem::path& scenario, const std::vector<SweepPoint>& points,
                const std::vector<std::size_t>& which, unsigned threads, const PointDone& done,
                const std::atomic<bool>* cancel = nullptr);

// One point's simulation, given the pool's shared workspace: run_points' loads the scenario with the point's
// overrides and runs it; the layout search runs its own (layout_search.hpp).
using PointRun = std::function<TrainingReport(const SweepPoint& point, run::Workspace& workspace)>;

// run_points with `run` for each point, on the same pool and with the same errors.
void run_points_with(const std::vector<SweepPoint>& points, const std::vector<std::size_t>& which, unsigned threads,
                     const PointRun& run, const PointDone& done, const std::atomic<bool>* cancel = nullptr);

// Loads the scenario once per distinct override (not per point), so that an unknown key or a bad value is found
// before anything runs (GPU names included); errors from `--set` overrides are reported at `--vary`.
void check_overrides(const std::filesystem::path& scenario, const std::vector<SweepPoint>& points);

}  // namespace syncsim::planner
