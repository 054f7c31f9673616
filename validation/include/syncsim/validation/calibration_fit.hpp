#pragma once
// Fitting a calibration to nccl-tests logs, with the simulator itself as the model.
//
// What NCCL's cost depends on (NCCL 2.30 src/graph/tuning.cc, src/enqueue.cc), and the unknown that stands for it,
// per regime (a regime plays an NCCL protocol: `latency` starts from ring LL's constants, `bandwidth` from Simple's):
//
//   NCCL                                          unknown          physical range (why)
//   baseLat: a fixed cost per collective          launch L  (us)   [0, 2 T_min], T_min the fastest measured
//                                                                  collective (see below)
//   hwLat[class]: a latency per step              l_c       (us)   [0, 2 T_min]: every collective of that class
//                                                                  pays at least one step
//   busBw = channels x per-channel bw x protocol  e_c       (1)    [1e-3, 1]: a fraction of the class's link rate in
//     efficiency                                                   the topology spec; a transfer never moves faster
//                                                                  than its link
//   nc = channels while nBytes >= nc x nThreads   F         (B)    [0, 64 x 512 x max(64, 8 x ranks)]: NCCL's
//     x threadThreshold: small messages run on                     MAXCHANNELS x threads x threadThreshold (Simple:
//     fewer channels, each as slow as ever                         64 B per thread; ring LL: 8 B x nRanks)
//
// Why 2 T_min: the regime that plays LL wins at the smallest size, so its fixed costs are below T_min; the one that
// plays Simple may pay more where it does not win (NCCL 2.30's Simple latencies are 1.3-6x LL's), but a fixed cost
// above twice the fastest collective is no latency: it is the fit bending a curve the model cannot follow (format
// 1 fitted a network step of 2.8 ms on a log whose fastest collective takes 38 us).
// The bandwidth is an efficiency of the spec's link rates, not an absolute bus bandwidth: the simulator already
// turns link rates into a bus bandwidth for each topology (rings, rails, shared NICs), so a fraction of the link
// transfers to a bigger system of the same links where an absolute busbw of the small one would not, and a
// fraction above 1 is a visible contradiction (the log moves more than the spec's links can) rather than a number.
// The fill F is the channel ramp: with nc = min(C, S / (threads x threshold)) channels a collective of S bytes takes
// about as long as one of C x threads x threshold = F bytes on all C, so a collective below F costs what F costs
// (TransferCost::fill); F is that size, where the channels' pipelines are all full.
//
// Every fitted parameter that ends on a bound of its range is recorded (Calibration::on_bound) and named by
// `calibrate` and `validate` on stderr: the fit wanted to go beyond it, so the model or the spec is off there.
//
// For a fixed algorithm a simulated collective costs
//
//   T(size) = L + sum_c n_c(size) l_c + sum_c v_c(size) x_c          (x_c = 1 / e_c; size raised to F below it)
//
// (n_c: steps of class c on the critical path; v_c: their bytes over the route rates): linear in the unknowns as
// long as the critical path and the algorithm stay the same. So the fit is Gauss-Newton on the simulator:
//
//   1. linearize: per measured point and regime, simulate (every algorithm; the fastest wins, as in `validate`),
//      then perturb each unknown of a class the log exercises, and the fill, and simulate the winner again: finite
//      differences give the row (n_c, v_c) exactly where T is linear. L's column is exactly 1.
//   2. solve the linear problem: minimize sum_i huber((T_i - m_i) / m_i) — the RELATIVE error, so a 64-byte
//      point counts as much as an 8 GiB one — by iteratively reweighted least squares (Huber threshold 5%: noisy
//      points such as a first row that includes warm-up pull with a bounded force), within the bounds above and
//      with a weak ridge towards NCCL's constants for directions no point determines.
//      Two regimes: `latency` starts on the smaller half of each log's sizes and `bandwidth` on the larger half;
//      then each point goes to the regime that predicts it best and the regimes are refitted, a few rounds. Since
//      the prediction is the minimum over regimes, a regime is also held (one-sided) above the points of the
//      other regime that it would otherwise undercut.
//   3. re-simulate at the new parameters; repeat from 1 while the real (simulated) objective improves.
//
// Only link classes some log exercises are fitted (a one-node NVLink log tells nothing about the network); the
// others keep NCCL's constants (ring LL for `latency`, ring Simple for `bandwidth`) and are marked unfitted.
//
// Extrapolation: the parameters are per link class, not per system, so a calibration of a small system predicts a
// bigger one of the same links (`syncsim validate BIG.log --calibration SMALL.yaml`), as long as the small one
// exercised every class the big one uses (docs/calibration.md, "Calibrate small, predict big").
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
