#pragma once
// ConvergenceRun: one run's convergence proxy (docs/convergence.md) as the Convergence view plots it — held-out
// loss and accuracy against simulated time and updates, the target and the time it was reached, divergence, and the
// staleness histogram of an asynchronous run.
//
// Read from a report.json written by `syncsim run` (its "convergence" object and top-level "staleness"), or taken
// from run::run_scenario's TrainingReport directly. The reader trusts nothing: a missing key, a value of the wrong
// type, a negative count or a non-finite time throws syncsim::InputError naming the file and the key path (e.g.
// `convergence.curve[3].time_us`), never crashes. A curve point whose loss is null (a diverged evaluation: JSON has
// no NaN) ends the curve there, as the simulator ends it.
//
// The plotting helpers are pure functions so that what the chart shows is tested without a chart:
//
//   x = time_us / unit.divisor   (ConvergenceXAxis::Time: ms or s, whichever reads best for the runs shown)
//   x = update                   (ConvergenceXAxis::Updates)
//   marker at time to target = (x of time_to_target_us, loss of the first curve point at or after it)
#include <QPointF>
#include <QString>
#include <optional>
#include <string_view>
#include <vector>

namespace syncsim {
struct TrainingReport;
}

struct ConvergencePoint {
  qint64 update = 0;
  double timeUs = 0;
  qint64 samples = 0;
  double loss = 0;
  double accuracy = 0;
};

struct StalenessHistogram {
  qint64 updates = 0;
  double mean = 0;
  qint64 max = 0;
  std::vector<qint64> counts;  // counts[s]: updates applied with staleness s
};

struct ConvergenceRun {
  QString source;  // the report.json or scenario it came from
  QString scenario;
  QString strategy;
  qint64 workers = 0;
  QString problem;
  qint64 updates = 0;
  qint64 evalEvery = 0;
  double learningRate = 0;
  QString lrScaling;
  std::optional<double> targetLoss;
  std::optional<double> timeToTargetUs;
  std::optional<qint64> updatesToTarget;
  std::optional<double> divergedAtUs;
  std::optional<qint64> divergedAtUpdate;
  double finalLoss = 0;
  double finalAccuracy = 0;
  double bestLoss = 0;
  std::vector<ConvergencePoint> curve;          // in update order
  std::optional<StalenessHistogram> staleness;  // asynchronous strategies only

  bool diverged() const { return divergedAtUs.has_value() || divergedAtUpdate.has_value(); }
  // Legend name: "strategies-64gpu-stragglers async, 64 workers" (translated).
  QString name() const;
};

enum class ConvergenceXAxis { Time, Updates };
enum class ConvergenceMetric { Loss, Accuracy };

// The time unit of the x axis: milliseconds up to 10 s of simulated time, seconds beyond.
struct ConvergenceTimeUnit {
  double divisorUs = 1e3;
  QString label;  // "ms" or "s"
};
ConvergenceTimeUnit convergenceTimeUnit(double maxTimeUs);
double maxCurveTimeUs(const std::vector<ConvergenceRun>& runs);

// The curve as chart points: x per `axis` (time in `unit`), y the loss or the accuracy.
std::vector<QPointF> convergenceCurve(const ConvergenceRun& run, ConvergenceXAxis axis, ConvergenceMetric metric,
                                      const ConvergenceTimeUnit& unit);
// Where the run reached its target (nullopt when it did not, or has no target).
std::optional<QPointF> timeToTargetMarker(const ConvergenceRun& run, ConvergenceXAxis axis,
                                          const ConvergenceTimeUnit& unit);
// Where the run diverged: x of the divergence, y the last loss evaluated (nullopt when it did not diverge).
std::optional<QPointF> divergenceMarker(const ConvergenceRun& run, ConvergenceXAxis axis,
                                        const ConvergenceTimeUnit& unit);

// The staleness histogram as at most maxBars bars, from the least staleness any update had to the most: the
// largest values that hold 99 % of the updates in bars of equal width (neighbouring values summed when there are
// more than the bars), the few below them in one bar — 64 asynchronous workers give "0-62" (63 updates, one per
// worker starting) and "63" (the rest). Empty when no update was counted.
struct StalenessBin {
  qint64 from = 0;  // staleness values from..to (inclusive)
  qint64 to = 0;
  qint64 count = 0;
  QString label() const;  // "7", or "8-15"
};
std::vector<StalenessBin> stalenessBins(const StalenessHistogram& histogram, int maxBars = 16);

// report.json: throws syncsim::InputError (file, key path) when it is not one or has no convergence section.
ConvergenceRun readConvergenceReport(const QString& path);
ConvergenceRun parseConvergenceReport(std::string_view json, const QString& source);
// A run just simulated (run_scenario's report); nullopt when the scenario had no convergence section.
std::optional<ConvergenceRun> convergenceRunOf(const syncsim::TrainingReport& report, const QString& source);
