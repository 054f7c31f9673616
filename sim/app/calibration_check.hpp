#pragma once
// A calibration's domain checked against the system a command uses it on (calibration_domain.hpp has the rules):
// one warning per difference that matters and a note on how the fitted parameters apply, on stderr; with
// --strict-calibration (or a scenario's strict_calibration: true) the first difference is an error instead.
#include <string>
#include <vector>

#include "syncsim/collectives/calibration.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/planner/sweep_point.hpp"
#include "syncsim/scenario/scenario.hpp"
#include "syncsim/validation/log_system.hpp"

namespace syncsim::app {

// The lines to print after "syncsim: " ("warning: calibration X: ...", then "note: ..."); empty inside the domain.
// Throws InputError at `strict_at` when `strict` and the target differs (or the file records no domain).
std::vector<std::string> check_calibration_domain(const Calibration& calibration, const std::string& path,
                                                  const SystemShape& target, bool strict,
                                                  const SourceLocation& strict_at);

void print_calibration_lines(const std::vector<std::string>& lines);

// One warning per fitted link class whose `bandwidth` regime efficiency is under kLowEfficiency of the
// link's rate, with its likely causes: far below what any NCCL protocol reaches on a healthy link (Simple moves
// 0.8-0.95 of it), so the spec's rate or the path is more likely wrong than the fit.
inline constexpr double kLowEfficiency = 0.3;
std::vector<std::string> low_efficiency_warnings(const Calibration& calibration);

// A measured time this many times below the simulated one is no measurement of the collective (a time of 0.01 us
// for a 1 MiB AllReduce printed an error of +299651.2% and nothing else): a unit or copying mistake in the log,
// flagged at its line, not refused: the rest of the log still validates or fits. Far above is left alone: real logs
// have slow outliers (a v100 RoCE log's 8-byte AllReduce took 2.2 ms, 100 times the model's).
inline constexpr double kImplausibleSpeedup = 100;

// One warning ("warning: LOG:LINE: time: ...") per point of `log` measured more than kImplausibleSpeedup times below
// its `simulated_us` (same order); `model` names the prediction ("simulated", "fitted"), `consequence` what the
// command does with the point.
std::vector<std::string> implausible_time_warnings(const std::string& log, const std::vector<MeasuredPoint>& points,
                                                   const std::vector<double>& simulated_us, const std::string& model,
                                                   const std::string& consequence);

// A scenario's calibration (when its latency model is the calibrated one) against the scenario's GPU and topology.
// `strict_flag`: the command's --strict-calibration.
void check_scenario_calibration(const Scenario& scenario, bool strict_flag);
// check_scenario_calibration's lines, not printed.
std::vector<std::string> scenario_calibration_lines(const Scenario& scenario, bool strict_flag);

// The same for every point of a sweep or a plan (`scenario_path` with each point's overrides), each against its own
// GPU and topology: points with the same cluster are checked once, each line kept once. Under strict the first point
// outside the calibration's domain is the error, its index and labels named.
std::vector<std::string> points_calibration_lines(const std::string& scenario_path,
                                                  const std::vector<planner::SweepPoint>& points, bool strict_flag);

}  // namespace syncsim::app
