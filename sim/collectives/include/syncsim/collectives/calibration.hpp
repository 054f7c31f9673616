#pragma once
// Calibration: a cost model fitted to measurements (`syncsim calibrate`), as a value and as a YAML file.
//
// A calibration holds regimes — each a TransferCost (latency_model.hpp): a launch overhead per collective, the
// channel ramp's fill size and, per link class, a step latency and an efficiency (the fraction of the route's
// bottleneck rate a transfer gets) — the fitted parameters that sit on a bound of their physical range, and the
// measurements it was fitted on with the fit's error. Every collective is simulated in each regime and
// the cheapest wins, so a latency-bound regime (fitted on small messages) and a bandwidth-bound one (fitted on
// large messages) together give the whole curve, as NCCL's protocols do.
//
//   format_version: 2
//   topology: dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps     # the family the fit was made for
//   placement: out_of_place                                           # which measured time was fitted
//   algorithm: tree            # optional: the logs ran one algorithm (NCCL_ALGO=Tree); absent: auto, as NCCL
//   regimes:
//     - name: latency
//       launch_us: 28.5
//       fill_bytes: 0            # the channel ramp: smaller collectives cost what one of this size costs
//       links:
//         nvlink: {step_latency_us: 0.61, efficiency: 0.31, fitted: true}
//         pci:    {step_latency_us: 1.0,  efficiency: 0.25, fitted: false}   # not exercised: NCCL's default
//         net:    {step_latency_us: 4.2,  efficiency: 0.44, fitted: true}
//     - name: bandwidth
//       ...
//     - name: window-1          # optional regimes that hold a size window (latency_model.hpp's RegimeWindow)
//       window: {min_bytes: 50000000, max_bytes: 400000000, link_class: net}
//       ...
//   on_bound:                    # fitted parameters on a bound of their range (calibrate and validate warn)
//     - {parameter: bandwidth.nvlink.efficiency, value: 1, bound: 1, side: upper}
//   domain: {gpu: A100-SXM4-40GB, nodes: 2, ranks: 16, links: [...], ...}   # calibration_domain.hpp
//   measurements:
//     - file: a100-2node.log
//       collective: allreduce
//       ranks: 16
//       hosts: 2
//       topology: dgx:nodes=2,gpus=8,...            # the family scaled to this log
//       sizes_bytes: [64, 128, ...]
//       measured_us: [38.75, 39.25, ...]
//       predicted_us: [37.9, 38.0, ...]
//       fit_error: {geomean_abs_error: 0.041, max_abs_error: 0.29, geomean_abs_error_1mib: 0.06,
//                   max_abs_error_1mib: 0.29}
//
// Units are in the key names (_us, _bytes); efficiency is a fraction in (0, 1]: a transfer never moves faster than
// its link (where the hardware beats the spec's rate, e.g. NVLink SHARP, the fit stops at 1 and says so in
// on_bound). Format 1 files (no fill_bytes, no on_bound, efficiencies up to 1.5) still read: each efficiency above
// 1 in them becomes an on_bound entry. Reading rejects, with file, line, column and key path: a missing or
// mistyped field, an unknown key, a negative latency, an efficiency outside (0, 1] ((0, 1.5] in format 1), an
// unknown link class or collective, measurement arrays of different lengths, a format version other than 1 or 2.
#include <array>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/collectives/calibration_domain.hpp"
#include "syncsim/collectives/collective_op.hpp"
#include "syncsim/collectives/error_summary.hpp"
#include "syncsim/collectives/latency_model.hpp"

namespace syncsim {

inline constexpr int kCalibrationFormatVersion = 2;
// A transfer gets at most its link's rate; format 1 allowed up to 1.5 (a fit that could not reach a measured
// rate "fixed" it with an efficiency above 1, which nobody was told about).
inline constexpr double kMaxEfficiency = 1.0;
inline constexpr double kMaxEfficiencyFormat1 = 1.5;

// Which of a log's two measurements is "the" measured time: out-of-place (nccl-tests' headline column),
// in-place, or the faster of the two. Both placements run the same collective, and interference only ever adds
// time, so `min` is the usual estimator for a noisy log (one straggling iteration inflates a mean).
enum class Placement { out_of_place, in_place, min };
std::string_view to_string(Placement placement);
Placement parse_placement(std::string_view text);  // out_of_place | in_place | min

struct LinkCalibration {
  double step_latency_us = 0;
  double efficiency = 1;
  bool fitted = false;  // false: no measurement exercised this class; the value is the default it started from
  friend bool operator==(const LinkCalibration&, const LinkCalibration&) = default;
};

inline bool operator==(const RegimeWindow& a, const RegimeWindow& b) {
  return a.min_size == b.min_size && a.max_size == b.max_size && a.link_class == b.link_class;
}

struct CalibrationRegime {
  std::string name;
  double launch_us = 0;
  double fill_bytes = 0;                 // the channel ramp (TransferCost::fill); 0: none
  std::array<LinkCalibration, 3> links;  // indexed by LinkKind
  std::optional<RegimeWindow> window;    // latency_model.hpp: a size range of collectives crossing one class
  friend bool operator==(const CalibrationRegime&, const CalibrationRegime&) = default;
};

// A fitted parameter that sits on a bound of its physical range: the fit wanted to go further, so the model or
// the topology spec is off there (e.g. an efficiency of 1: the log moves more than the spec's links can).
struct BoundHit {
  std::string parameter;  // regime.class.field or regime.field: "bandwidth.nvlink.efficiency", "latency.launch_us"
  double value = 0;
  double bound = 0;
  bool upper = true;
  friend bool operator==(const BoundHit&, const BoundHit&) = default;
};
// One line for a terminal: "calibration parameter bandwidth.nvlink.efficiency = 1 is on its upper bound 1 (...)".
std::string describe(const BoundHit& hit);

struct CalibrationMeasurement {
  std::string file;
  CollectiveOp collective = CollectiveOp::allreduce;
  int ranks = 0;
  int hosts = 0;
  std::string topology;  // the spec the log was simulated on
  std::vector<std::int64_t> sizes_bytes;
  std::vector<double> measured_us;
  std::vector<double> predicted_us;
  ErrorSummary fit_error;
};

struct Calibration {
  int format_version = kCalibrationFormatVersion;
  std::string topology;  // the family spec
  Placement placement = Placement::out_of_place;
  // Set when the logs were measured with one algorithm forced (NCCL_ALGO): predictions then run it too, unless a
  // command names another. nullopt: the fastest algorithm, as NCCL's tuner picks.
  std::optional<Algorithm> algorithm;
  std::vector<CalibrationRegime> regimes;
  std::vector<BoundHit> on_bound;
  std::vector<CalibrationMeasurement> measurements;
  // What it was fitted on (calibration_domain.hpp); nullopt in files written before syncsim recorded it.
  std::optional<CalibrationDomain> domain;
};

// A calibrated prediction's error band: from the fit's residuals (measured / predicted - 1) at sizes within a factor
// of kBandSizeFactor of the size asked (the nearest fitted sizes where none is that near), and at least
// kBandFloor either side, a prediction P stands for P x (1 + low) .. P x (1 + high), low <= 0 <= high. The floor is
// the fit's own noise level (its Huber threshold, calibration_fit.cpp: residuals below 5% count as noise, not shape);
// the factor, three doublings, is where the regimes' cost is still about the same mix of latency and bandwidth. Left
// one log out of a system's logs, the band of the others covers 84% (L40S ring) and 88% (default) of its sizes
// (calibration_fit_test.cpp).
struct ErrorBand {
  double low = 0;
  double high = 0;
};
inline constexpr double kBandSizeFactor = 8;
inline constexpr double kBandFloor = 0.05;
ErrorBand error_band(const Calibration& calibration, Bytes size);

// The regimes as the collective runner uses them.
CalibratedModel to_model(const Calibration& calibration);
TransferCost to_cost(const CalibrationRegime& regime);

// Throws InputError with file:line:column and key path (see above).
Calibration read_calibration(const std::string& path);
// The same for text in memory; `source` names it in errors.
Calibration parse_calibration(const std::string& text, const std::string& source);
// Writes the file (comments included) that read_calibration reads back to the same calibration.
void write_calibration(std::ostream& out, const Calibration& calibration);

}  // namespace syncsim
