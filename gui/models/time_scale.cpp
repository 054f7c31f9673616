#include "models/time_scale.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>

namespace {

struct Unit {
  double ps;
  const char* symbol;
};

// Largest unit first; a value reads in the largest unit that is not more than it.
constexpr Unit kUnits[] = {
    {86400e12, QT_TRANSLATE_NOOP("TimeScale", "d")}, {3600e12, QT_TRANSLATE_NOOP("TimeScale", "h")},
    {60e12, QT_TRANSLATE_NOOP("TimeScale", "min")},  {1e12, QT_TRANSLATE_NOOP("TimeScale", "s")},
    {1e9, QT_TRANSLATE_NOOP("TimeScale", "ms")},     {1e6, QT_TRANSLATE_NOOP("TimeScale", "µs")},
    {1e3, QT_TRANSLATE_NOOP("TimeScale", "ns")},     {1, QT_TRANSLATE_NOOP("TimeScale", "ps")}};

const Unit& unitFor(double ps) {
  for (const Unit& u : kUnits) {
    if (std::abs(ps) >= u.ps) return u;
  }
  return kUnits[std::size(kUnits) - 1];
}

QString unitName(const Unit& u) {
  return QCoreApplication::translate("TimeScale", u.symbol);
}

// Past 20 s a tick step is a round number of minutes, hours or days, as a clock reads (a job timeline's weeks),
// in seconds; past the last, whole multiples of 100 days by the 1-2-5 rule.
constexpr qint64 kClockSteps[] = {30,    60,    120,   300,   600,    900,       1800,       3600,      7200,
                                  10800, 21600, 43200, 86400, 172800, 7 * 86400, 14 * 86400, 30 * 86400};

}  // namespace

TimeScale::TimeScale(qint64 startPs, double psPerPixel)
    : m_startPs(startPs), m_psPerPixel(std::clamp(psPerPixel, kMinPsPerPixel, kMaxPsPerPixel)) {}

TimeScale TimeScale::fit(qint64 beginPs, qint64 endPs, double widthPx) {
  const double span = static_cast<double>(std::max<qint64>(endPs - beginPs, 1));
  return TimeScale(beginPs, span / std::max(widthPx, 1.0));
}

qint64 TimeScale::toTime(double x) const {
  return m_startPs + static_cast<qint64>(std::llround(x * m_psPerPixel));
}

TimeScale TimeScale::zoomedAt(double x, double factor) const {
  const qint64 anchor = toTime(x);
  const double perPixel = std::clamp(m_psPerPixel / factor, kMinPsPerPixel, kMaxPsPerPixel);
  return TimeScale(anchor - static_cast<qint64>(std::llround(x * perPixel)), perPixel);
}

TimeScale TimeScale::panned(double dx) const {
  return TimeScale(m_startPs - static_cast<qint64>(std::llround(dx * m_psPerPixel)), m_psPerPixel);
}

TimeScale TimeScale::boxed(double x0, double x1, double widthPx) const {
  const double lo = std::min(x0, x1);
  const double hi = std::max(x0, x1);
  return fit(toTime(lo), toTime(std::max(hi, lo + 1)), widthPx);
}

qint64 TimeScale::tickStepPs(double minSpacingPx) const {
  const double minStep = std::max(minSpacingPx * m_psPerPixel, 1.0);
  if (minStep > 20e12) {
    for (const qint64 seconds : kClockSteps) {
      if (static_cast<double>(seconds) * 1e12 >= minStep) return seconds * 1'000'000'000'000;
    }
  }
  double decade = std::pow(10.0, std::floor(std::log10(minStep)));
  for (;;) {
    for (const double m : {1.0, 2.0, 5.0}) {
      if (m * decade >= minStep) return static_cast<qint64>(std::llround(m * decade));
    }
    decade *= 10;
  }
}

std::vector<TimeTick> TimeScale::ticks(double widthPx, double minSpacingPx) const {
  const qint64 step = tickStepPs(minSpacingPx);
  const qint64 last = endPs(widthPx);
  // First multiple of step at or after the left edge (floor division that also works before zero).
  qint64 t = m_startPs / step * step;
  if (t < m_startPs) t += step;
  std::vector<TimeTick> out;
  for (; t <= last; t += step) out.push_back({t, toX(t), formatTime(t, step)});
  return out;
}

QString TimeScale::formatTime(qint64 ps, qint64 stepPs) {
  // The unit of twice the step: a 500 us step reads 0.5 ms, 1 ms, 1.5 ms; a 200 us step 200 us, 400 us.
  const Unit& u = unitFor(2.0 * static_cast<double>(std::max<qint64>(stepPs, 1)));
  // Decimals enough to tell neighbouring ticks apart: a 0.5 ms step needs one, a 2 ms step none.
  const double stepInUnit = static_cast<double>(stepPs) / u.ps;
  const int decimals = std::max(0, static_cast<int>(std::ceil(-std::log10(stepInUnit) - 1e-9)));
  return QStringLiteral("%1 %2").arg(static_cast<double>(ps) / u.ps, 0, 'f', decimals).arg(unitName(u));
}

QString TimeScale::formatDuration(qint64 ps) {
  const Unit& u = unitFor(static_cast<double>(ps));
  const double v = static_cast<double>(ps) / u.ps;
  return QStringLiteral("%1 %2").arg(QString::number(v, 'g', 3), unitName(u));
}
