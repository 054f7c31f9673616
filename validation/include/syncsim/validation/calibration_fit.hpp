#pragma once
// Fitting a calibration to nccl-tests logs, with the simulator itself as the model.
//
// Unknowns, per regime: the launch overhead L, and per link class c the step latency l_c and the inverse
// efficiency x_c = 1 / efficiency_c. For a fixed algorithm a simulated collective costs
//
//   T(size) = L + sum_c n_c(size) l_c + sum_c v_c(size) x_c
//
// (n_c: steps of class c on the critical path; v_c: their bytes over the route rates): linear in the unknowns as
// long as the critical path and the algorithm stay the same. So the fit is Gauss-Newton on the simulator:
//
//   1. linearize: per measured point and regime, simulate (every algorithm; the fastest wins, as in `validate`),
//      then perturb each unknown of a class the log exercises and simulate the winner again: finite differences
//      give the row (n_c, v_c) exactly where T is linear. L's column is exactly 1.
//   2. solve the linear problem: minimize sum_i huber((T_i - m_i) / m_i) — the RELATIVE error, so a 64-byte
//      point counts as much as an 8 GiB one — by iteratively reweighted least squares (Huber threshold 5%: noisy
//      points such as a first row that includes warm-up pull with a bounded force), within bounds (latencies >= 0,
//      efficiency in (0, 1.5]) and with a weak ridge towards NCCL's constants for directions no point determines.
//      Two regimes: `latency` starts on the smaller half of each log's sizes and `bandwidth` on the larger half;
//      then each point goes to the regime that predicts it best and the regimes are refitted, a few rounds. Since
//      the prediction is the minimum over regimes, a regime is also held (one-sided) above the points of the
//      other regime that it would otherwise undercut.
//   3. re-simulate at the new parameters; repeat from 1 while the real (simulated) objective improves.
//
// Only link classes some log exercises are fitted (a one-node NVLink log tells nothing about the network); the
// others keep NCCL's constants (ring LL for `latency`, ring Simple for `bandwidth`) and are marked unfitted.
//
//   std::vector<NcclTestsLog> logs{read_nccl_tests_log("a100-1node.log"), read_nccl_tests_log("a100-2node.log")};
//   const Calibration cal = fit_calibration(logs, "dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps", {});
#include <functional>
#include <string>
#include <vector>

#include "syncsim/collectives/calibration.hpp"
#include "syncsim/validation/log_system.hpp"
#include "syncsim/validation/nccl_tests_log.hpp"

namespace syncsim {

struct FitOptions {
  Placement placement = Placement::out_of_place;
  std::optional<Algorithm> algorithm;          // the logs ran this algorithm only (NCCL_ALGO); nullopt: auto
  std::string topology_source = "--topology";  // names the spec in errors
  // Called with a one-line progress note per Gauss-Newton iteration (for a terminal); may be empty.
  std::function<void(const std::string&)> progress;
};

struct FitStats {
  int iterations = 0;
  std::size_t simulations = 0;
};

// Throws InputError for logs the topology family cannot hold, or logs with nothing to fit.
Calibration fit_calibration(const std::vector<NcclTestsLog>& logs, const std::string& topology_family,
                            const FitOptions& options = {}, FitStats* stats = nullptr);

// The calibration's measurement entry for one log: its points simulated under `model` and the errors.
CalibrationMeasurement measure_fit(const NcclTestsLog& log, LogSystem& system, const std::vector<MeasuredPoint>& points,
                                   const CalibratedModel& model, std::optional<Algorithm> algorithm);

}  // namespace syncsim
