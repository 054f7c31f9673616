#pragma once
// TimeScale: the mapping between simulated time (integer picoseconds) and the horizontal pixels of a timeline.
//
//   x = (t - startPs) / psPerPixel          t = startPs + x * psPerPixel
//
// A pure value, shared by the timeline's renderer, its hit test, its axis and the tests (as hotspot keeps its
// time-to-pixel mapping a pure function). Zoom keeps the time under the mouse where it is; the axis picks a tick
// step of 1, 2 or 5 times a power of ten picoseconds and the unit (ps, ns, µs, ms, s) that step reads best in.
#include <QString>
#include <QtGlobal>
#include <vector>

struct TimeTick {
  qint64 timePs = 0;
  double x = 0;
  QString label;
};

class TimeScale {
 public:
  // Zoom limits: 100 pixels per picosecond at the closest, about a day (1e17 ps) per pixel at the farthest.
  static constexpr double kMinPsPerPixel = 0.01;
  static constexpr double kMaxPsPerPixel = 1e17;

  TimeScale() = default;
  TimeScale(qint64 startPs, double psPerPixel);
  // The scale that shows [beginPs, endPs] across widthPx pixels.
  static TimeScale fit(qint64 beginPs, qint64 endPs, double widthPx);

  qint64 startPs() const { return m_startPs; }
  double psPerPixel() const { return m_psPerPixel; }
  qint64 endPs(double widthPx) const { return toTime(widthPx); }

  double toX(qint64 timePs) const { return static_cast<double>(timePs - m_startPs) / m_psPerPixel; }
  qint64 toTime(double x) const;

  // factor > 1 zooms in; the time under pixel x stays under x.
  TimeScale zoomedAt(double x, double factor) const;
  // Moves the content right by dx pixels (the earlier time comes into view).
  TimeScale panned(double dx) const;
  // The scale that shows the time between pixels x0 and x1 across widthPx.
  TimeScale boxed(double x0, double x1, double widthPx) const;

  // A 1-2-5 step in picoseconds with ticks at least minSpacingPx apart.
  qint64 tickStepPs(double minSpacingPx) const;
  std::vector<TimeTick> ticks(double widthPx, double minSpacingPx = 90) const;
  // A time printed in the unit that suits stepPs, with as many decimals as that step needs: "1.5 ms", "250 ns".
  static QString formatTime(qint64 ps, qint64 stepPs);
  // A duration in its own best unit, three significant digits: "61.4 µs".
  static QString formatDuration(qint64 ps);

 private:
  qint64 m_startPs = 0;
  double m_psPerPixel = 1;
};
