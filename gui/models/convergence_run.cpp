#include "models/convergence_run.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"
#include "syncsim/core/json_input.hpp"
#include "syncsim/training/training_report.hpp"

using json = nlohmann::json;

namespace {

// Beyond 10 s of simulated time, milliseconds grow to five digits on the axis: seconds read better there.
constexpr double kSecondsFromUs = 10e6;
// The share of updates that the staleness bars show value by value; the rest share one bar (stalenessBins).
constexpr double kStalenessBulk = 0.99;

// Reads one JSON object, naming every failure by its key path ("convergence.curve[3].loss") and the file.
class Reader {
 public:
  Reader(const json& object, std::string path, const QString& source)
      : m_object(object), m_path(std::move(path)), m_source(source) {}

  [[noreturn]] void fail(const std::string& key, const QString& message) const {
    throw syncsim::InputError(message.toStdString(), syncsim::SourceLocation{m_source.toStdString(), 0, 0},
                              keyPath(key));
  }

  std::string keyPath(const std::string& key) const { return m_path.empty() ? key : m_path + "." + key; }

  // nullptr when the key is absent or null and that is allowed.
  const json* find(const std::string& key, bool nullable) const {
    const auto it = m_object.find(key);
    if (it == m_object.end() || it->is_null()) {
      if (nullable) return nullptr;
      fail(key, it == m_object.end() ? QCoreApplication::translate("ConvergenceRun", "missing")
                                     : QCoreApplication::translate("ConvergenceRun", "expected a value, got null"));
    }
    return &*it;
  }

  QString string(const std::string& key) const {
    const json* v = find(key, false);
    if (!v->is_string()) fail(key, QCoreApplication::translate("ConvergenceRun", "expected a string"));
    return QString::fromStdString(v->get<std::string>());
  }

  std::optional<double> number(const std::string& key, bool nullable = false) const {
    const json* v = find(key, nullable);
    if (v == nullptr) return std::nullopt;
    if (!v->is_number()) fail(key, QCoreApplication::translate("ConvergenceRun", "expected a number"));
    const double x = v->get<double>();
    if (!std::isfinite(x)) fail(key, QCoreApplication::translate("ConvergenceRun", "expected a finite number"));
    return x;
  }

  std::optional<double> time(const std::string& key, bool nullable = false) const {
    const auto t = number(key, nullable);
    if (t && *t < 0)
      fail(key, QCoreApplication::translate("ConvergenceRun", "expected a time >= 0 (microseconds), got %1").arg(*t));
    return t;
  }

  std::optional<qint64> count(const std::string& key, bool nullable = false) const {
    const json* v = find(key, nullable);
    if (v == nullptr) return std::nullopt;
    if (!v->is_number_integer()) fail(key, QCoreApplication::translate("ConvergenceRun", "expected a whole number"));
    const auto n = v->get<std::int64_t>();
    if (n < 0) fail(key, QCoreApplication::translate("ConvergenceRun", "expected a count >= 0, got %1").arg(n));
    return n;
  }

  const json& object(const std::string& key) const {
    const json* v = find(key, false);
    if (!v->is_object()) fail(key, QCoreApplication::translate("ConvergenceRun", "expected an object"));
    return *v;
  }

  const json& array(const std::string& key) const {
    const json* v = find(key, false);
    if (!v->is_array()) fail(key, QCoreApplication::translate("ConvergenceRun", "expected an array"));
    return *v;
  }

 private:
  const json& m_object;
  std::string m_path;
  QString m_source;
};

double nanIfNull(const Reader& r, const std::string& key) {
  // A diverged run's final and best loss are NaN, which report.json writes as null.
  return r.number(key, true).value_or(std::numeric_limits<double>::quiet_NaN());
}

std::vector<ConvergencePoint> readCurve(const Reader& parent, const json& curve, const QString& source) {
  std::vector<ConvergencePoint> points;
  for (std::size_t i = 0; i < curve.size(); ++i) {
    const std::string key = "curve[" + std::to_string(i) + "]";
    if (!curve[i].is_object()) parent.fail(key, QCoreApplication::translate("ConvergenceRun", "expected an object"));
    const Reader r(curve[i], parent.keyPath(key), source);
    ConvergencePoint p;
    p.update = *r.count("update");
    p.timeUs = *r.time("time_us");
    p.samples = *r.count("samples");
    const auto loss = r.number("loss", true);
    const auto accuracy = r.number("accuracy", true);
    if (!loss) break;  // the evaluation that diverged: the curve ends there
    p.loss = *loss;
    p.accuracy = accuracy.value_or(0);
    if (!points.empty() && (p.update < points.back().update || p.timeUs < points.back().timeUs)) {
      r.fail("update", QCoreApplication::translate("ConvergenceRun", "curve points must be in update and time order"));
    }
    points.push_back(p);
  }
  return points;
}

}  // namespace

QString ConvergenceRun::name() const {
  return QCoreApplication::translate("ConvergenceRun", "%1 %2, %3 workers").arg(scenario, strategy).arg(workers);
}

ConvergenceTimeUnit convergenceTimeUnit(double maxTimeUs) {
  if (maxTimeUs > kSecondsFromUs) return {1e6, QCoreApplication::translate("ConvergenceRun", "s")};
  return {1e3, QCoreApplication::translate("ConvergenceRun", "ms")};
}

double maxCurveTimeUs(const std::vector<ConvergenceRun>& runs) {
  double t = 0;
  for (const ConvergenceRun& r : runs) {
    if (!r.curve.empty()) t = std::max(t, r.curve.back().timeUs);
  }
  return t;
}

namespace {

double xOf(double timeUs, qint64 update, ConvergenceXAxis axis, const ConvergenceTimeUnit& unit) {
  return axis == ConvergenceXAxis::Time ? timeUs / unit.divisorUs : static_cast<double>(update);
}

}  // namespace

std::vector<QPointF> convergenceCurve(const ConvergenceRun& run, ConvergenceXAxis axis, ConvergenceMetric metric,
                                      const ConvergenceTimeUnit& unit) {
  std::vector<QPointF> points;
  points.reserve(run.curve.size());
  for (const ConvergencePoint& p : run.curve) {
    points.emplace_back(xOf(p.timeUs, p.update, axis, unit), metric == ConvergenceMetric::Loss ? p.loss : p.accuracy);
  }
  return points;
}

std::optional<QPointF> timeToTargetMarker(const ConvergenceRun& run, ConvergenceXAxis axis,
                                          const ConvergenceTimeUnit& unit) {
  if (!run.timeToTargetUs || !run.targetLoss) return std::nullopt;
  // The evaluation that reached the target: the first at or after that time (they coincide in a report).
  const auto it = std::find_if(run.curve.begin(), run.curve.end(),
                               [&](const ConvergencePoint& p) { return p.timeUs >= *run.timeToTargetUs; });
  const double loss = it != run.curve.end() ? it->loss : *run.targetLoss;
  const qint64 update = run.updatesToTarget.value_or(it != run.curve.end() ? it->update : 0);
  return QPointF(xOf(*run.timeToTargetUs, update, axis, unit), loss);
}

std::optional<QPointF> divergenceMarker(const ConvergenceRun& run, ConvergenceXAxis axis,
                                        const ConvergenceTimeUnit& unit) {
  if (!run.diverged()) return std::nullopt;
  const ConvergencePoint last = run.curve.empty() ? ConvergencePoint{} : run.curve.back();
  const double timeUs = run.divergedAtUs.value_or(last.timeUs);
  const qint64 update = run.divergedAtUpdate.value_or(last.update);
  return QPointF(xOf(timeUs, update, axis, unit), last.loss);
}

QString StalenessBin::label() const {
  return from == to ? QString::number(from) : QStringLiteral("%1-%2").arg(from).arg(to);
}

std::vector<StalenessBin> stalenessBins(const StalenessHistogram& histogram, int maxBars) {
  std::vector<StalenessBin> bins;
  const auto& counts = histogram.counts;
  const auto first = std::find_if(counts.begin(), counts.end(), [](qint64 c) { return c != 0; });
  if (first == counts.end()) return bins;
  const auto last = std::find_if(counts.rbegin(), counts.rend(), [](qint64 c) { return c != 0; });
  const qint64 lo = first - counts.begin();
  const qint64 hi = static_cast<qint64>(counts.size()) - 1 - (last - counts.rbegin());
  const auto sum = [&](qint64 from, qint64 to) {
    qint64 n = 0;
    for (qint64 s = from; s <= to; ++s) n += counts[static_cast<std::size_t>(s)];
    return n;
  };
  // The bulk: the fewest largest staleness values that hold kStalenessBulk of the updates. N asynchronous workers
  // put nearly every update at N - 1 and one each at 0..N-2 while they start; those few go into one bar.
  const qint64 total = sum(lo, hi);
  qint64 bulk = hi;
  for (qint64 tail = counts[static_cast<std::size_t>(hi)];
       static_cast<double>(tail) < kStalenessBulk * static_cast<double>(total);) {
    tail += counts[static_cast<std::size_t>(--bulk)];
  }
  if (bulk > lo) bins.push_back({lo, bulk - 1, sum(lo, bulk - 1)});
  // The bulk in bars of equal width, the smallest that keeps all the bars at most maxBars.
  const qint64 bars = std::max<qint64>(1, maxBars - static_cast<qint64>(bins.size()));
  const qint64 width = (hi - bulk + bars) / bars;
  for (qint64 from = bulk; from <= hi; from += width) {
    const qint64 to = std::min(hi, from + width - 1);
    bins.push_back({from, to, sum(from, to)});
  }
  return bins;
}

ConvergenceRun parseConvergenceReport(std::string_view text, const QString& source) {
  syncsim::check_json_nesting(text, source.toStdString());
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number past double's range
    throw syncsim::InputError(QCoreApplication::translate("ConvergenceRun", "not valid JSON: %1")
                                  .arg(QString::fromUtf8(e.what()))
                                  .toStdString(),
                              syncsim::SourceLocation{source.toStdString(), 0, 0});
  }
  if (!doc.is_object()) {
    throw syncsim::InputError(
        QCoreApplication::translate("ConvergenceRun", "not a report.json: expected an object").toStdString(),
        syncsim::SourceLocation{source.toStdString(), 0, 0});
  }
  if (!doc.contains("scenario") && !doc.contains("convergence")) {
    // A trace.json, or some other JSON: say what was expected rather than which key is missing.
    throw syncsim::InputError(QCoreApplication::translate("ConvergenceRun",
                                                          "not a report.json written by `syncsim run`: it has no "
                                                          "\"scenario\" or \"convergence\" key")
                                  .toStdString(),
                              syncsim::SourceLocation{source.toStdString(), 0, 0});
  }
  const Reader top(doc, "", source);
  ConvergenceRun run;
  run.source = source;
  run.scenario = top.string("scenario");
  run.strategy = top.string("strategy");
  run.workers = *top.count("workers");
  const auto c = doc.find("convergence");
  if (c == doc.end() || c->is_null()) {
    top.fail("convergence",
             QCoreApplication::translate("ConvergenceRun",
                                         "no convergence section: run the scenario with a `convergence:` section or "
                                         "--set convergence.target_loss=X (docs/convergence.md)"));
  }
  const Reader conv(top.object("convergence"), "convergence", source);
  run.problem = conv.string("problem");
  run.updates = *conv.count("updates");
  run.evalEvery = *conv.count("eval_every");
  run.learningRate = *conv.number("learning_rate");
  run.lrScaling = conv.string("lr_scaling");
  run.targetLoss = conv.number("target_loss", true);
  run.timeToTargetUs = conv.time("time_to_target_us", true);
  run.updatesToTarget = conv.count("updates_to_target", true);
  run.divergedAtUs = conv.time("diverged_at_us", true);
  run.divergedAtUpdate = conv.count("diverged_at_update", true);
  run.finalLoss = nanIfNull(conv, "final_loss");
  run.finalAccuracy = nanIfNull(conv, "final_accuracy");
  run.bestLoss = nanIfNull(conv, "best_loss");
  if (run.timeToTargetUs && !run.targetLoss)
    conv.fail("time_to_target_us", QCoreApplication::translate("ConvergenceRun", "given without a target_loss"));
  run.curve = readCurve(conv, conv.array("curve"), source);
  if (const auto s = doc.find("staleness"); s != doc.end() && !s->is_null()) {
    const Reader st(top.object("staleness"), "staleness", source);
    StalenessHistogram h;
    h.updates = *st.count("updates");
    h.mean = *st.number("mean");
    h.max = *st.count("max");
    const json& counts = st.array("histogram");
    for (std::size_t i = 0; i < counts.size(); ++i) {
      if (!counts[i].is_number_integer() || counts[i].get<std::int64_t>() < 0) {
        st.fail("histogram[" + std::to_string(i) + "]",
                QCoreApplication::translate("ConvergenceRun", "expected a count >= 0"));
      }
      h.counts.push_back(counts[i].get<std::int64_t>());
    }
    run.staleness = std::move(h);
  }
  return run;
}

ConvergenceRun readConvergenceReport(const QString& path) {
  // The CLI's checked reader: a FIFO, a device or a folder is refused before it is opened, and the size is capped.
  return parseConvergenceReport(syncsim::read_input_file(path.toStdString(), "report.json"), path);
}

std::optional<ConvergenceRun> convergenceRunOf(const syncsim::TrainingReport& report, const QString& source) {
  if (!report.convergence) return std::nullopt;
  const syncsim::ConvergenceReport& c = *report.convergence;
  const auto us = [](syncsim::SimTime t) { return static_cast<double>(t.ps()) / 1e6; };
  ConvergenceRun run;
  run.source = source;
  run.scenario = QString::fromStdString(report.scenario);
  run.strategy = QString::fromStdString(report.strategy);
  run.workers = report.workers;
  run.problem = QString::fromStdString(c.problem);
  run.updates = c.updates;
  run.evalEvery = c.eval_every;
  run.learningRate = c.learning_rate;
  run.lrScaling = QString::fromStdString(c.lr_scaling);
  run.targetLoss = c.target_loss;
  if (c.time_to_target) run.timeToTargetUs = us(*c.time_to_target);
  run.updatesToTarget = c.updates_to_target;
  if (c.diverged_at) run.divergedAtUs = us(*c.diverged_at);
  run.divergedAtUpdate = c.diverged_at_update;
  run.finalLoss = c.final_loss;
  run.finalAccuracy = c.final_accuracy;
  run.bestLoss = c.best_loss;
  for (const syncsim::ConvergenceSample& s : c.curve) {
    if (!std::isfinite(s.loss)) break;  // as in the JSON: the diverged evaluation ends the curve
    run.curve.push_back({s.update, us(s.at), s.samples, s.loss, s.accuracy});
  }
  if (report.staleness) {
    run.staleness =
        StalenessHistogram{report.staleness->updates, report.staleness->mean, report.staleness->max,
                           std::vector<qint64>(report.staleness->histogram.begin(), report.staleness->histogram.end())};
  }
  return run;
}
