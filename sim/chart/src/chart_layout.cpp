#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "syncsim/chart/chart.hpp"

namespace syncsim::chart {

namespace {

// Distinguishable on white and for common colour blindness (Okabe-Ito).
constexpr Rgb kPalette[] = {{0, 114, 178},  {230, 159, 0}, {0, 158, 115},  {204, 121, 167},
                            {86, 180, 233}, {213, 94, 0},  {240, 228, 66}, {0, 0, 0}};
constexpr Rgb kInk{40, 40, 40};
constexpr Rgb kGrid{220, 220, 220};
constexpr Rgb kRule{180, 0, 0};  // thresholds and deadlines
constexpr double kLeft = 80, kRight = 230, kTop = 40, kBottom = 60;
constexpr int kTicks = 5;

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return lo > hi; }
};

// A "nice" step (1, 2 or 5 x 10^k) so that tick labels read as round numbers.
double nice_step(double span) {
  const double raw = span / kTicks;
  const double power = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (raw <= m * power) return m * power;
  }
  return 10 * power;
}

std::string tick_text(double v) {
  const double a = std::abs(v);
  if (a >= 1e6) return fmt::format("{:g}M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:g}k", v / 1e3);
  return fmt::format("{:g}", v == 0 ? 0.0 : v);  // a tick computed as -0.0 prints as 0
}

Rgb series_color(const Chart& chart, std::size_t i) {
  const int chosen = i < chart.series.size() ? chart.series[i].color : -1;
  return kPalette[(chosen >= 0 ? static_cast<std::size_t>(chosen) : i) % std::size(kPalette)];
}

// A point label's box, approximately: the labels are short, in a font about 7 px wide and 12 px high.
struct LabelBox {
  double x0, y0, x1, y1;
  bool overlaps(const LabelBox& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

// Beside its point (to the left near the right edge, clear of the legend), above it or else below; left out where
// both would cover a label already placed, so that crowded points stay readable.
void place_label(Canvas& canvas, std::vector<LabelBox>& placed, double x, double y, const std::string& text,
                 double right_edge) {
  const bool left = x > right_edge;
  const double width = 7.0 * static_cast<double>(text.size());
  for (const double dy : {-7.0, 15.0}) {
    const double tx = x + (left ? -6 : 6);
    const LabelBox box{left ? tx - width : tx, y + dy - 10, left ? tx : tx + width, y + dy + 2};
    if (std::any_of(placed.begin(), placed.end(), [&](const LabelBox& b) { return b.overlaps(box); })) continue;
    placed.push_back(box);
    canvas.text(tx, y + dy, text, left ? TextAnchor::end : TextAnchor::start, kInk);
    return;
  }
}

// A legend entry's text beside its key, wrapped at spaces so that it stays inside the right margin (a line of about
// 26 characters at 7 px); returns how far down the next entry goes.
constexpr double kLegendLine = 20, kLegendWrap = 14;
double legend_text(Canvas& canvas, double x, double y, const std::string& text) {
  const auto fits = static_cast<std::size_t>((kRight - 46) / 7.0);
  std::size_t start = 0;
  double dy = 0;
  while (text.size() - start > fits) {
    const std::size_t cut = text.rfind(' ', start + fits);
    if (cut == std::string::npos || cut <= start) break;  // one word longer than a line: let it run
    canvas.text(x, y + dy, text.substr(start, cut - start), TextAnchor::start, kInk);
    start = cut + 1;
    dy += kLegendWrap;
  }
  canvas.text(x, y + dy, text.substr(start), TextAnchor::start, kInk);
  return kLegendLine + dy;
}

}  // namespace

void draw_chart(const Chart& chart, Canvas& canvas) {
  // On a log y axis the plot works in decades: y values are log10 of the data, ticks at whole decades.
  const auto ty = [&](double v) { return chart.log_y ? std::log10(std::max(v, 1e-12)) : v; };
  Range x, y;
  for (const ChartSeries& s : chart.series) {
    for (const auto& [px, py] : s.points) {
      x.add(chart.log_x ? std::log2(std::max(px, 1e-12)) : px);
      y.add(ty(py));
    }
  }
  for (const auto& [px, py] : chart.front) {
    x.add(chart.log_x ? std::log2(std::max(px, 1e-12)) : px);
    y.add(ty(py));
  }
  for (const MissingPoint& m : chart.missing) x.add(chart.log_x ? std::log2(std::max(m.x, 1e-12)) : m.x);
  if (chart.y_rule) y.add(ty(*chart.y_rule));
  if (chart.x_rule) x.add(chart.log_x ? std::log2(std::max(*chart.x_rule, 1e-12)) : *chart.x_rule);
  if (x.empty()) x = {0, 1};
  if (y.empty()) y = {0, 1};
  if (!chart.log_y) y.lo = std::min(y.lo, 0.0);  // throughput, efficiency and cost all read best from zero
  if (x.hi - x.lo < 1e-12) x = {x.lo - 1, x.hi + 1};
  if (y.hi - y.lo < 1e-12) y.hi = y.lo + 1;
  const double step = chart.log_y ? 1.0 : nice_step(y.hi - y.lo);
  y.lo = std::floor(y.lo / step) * step;
  y.hi = std::ceil(y.hi / step) * step;
  const double x_pad = (x.hi - x.lo) * 0.04;
  x = {x.lo - x_pad, x.hi + x_pad};

  const double w = kChartWidth - kLeft - kRight;
  const double h = kChartHeight - kTop - kBottom;
  const auto sx = [&](double v) {
    return kLeft + ((chart.log_x ? std::log2(std::max(v, 1e-12)) : v) - x.lo) / (x.hi - x.lo) * w;
  };
  const auto sy = [&](double v) { return kTop + h - (ty(v) - y.lo) / (y.hi - y.lo) * h; };

  canvas.text(kChartWidth / 2.0 - (kRight - kLeft) / 2, 24, chart.title, TextAnchor::middle, kInk);
  // y grid and ticks
  for (double t = y.lo; t <= y.hi + step / 2; t += step) {
    const double v = chart.log_y ? std::pow(10.0, t) : t;
    canvas.line(kLeft, sy(v), kLeft + w, sy(v), kGrid, 1, false);
    canvas.text(kLeft - 8, sy(v) + 4, tick_text(v), TextAnchor::end, kInk);
  }
  // x ticks: the data's own x values on a log axis (GPU counts), round numbers otherwise
  std::vector<double> xticks;
  if (chart.log_x) {
    for (const ChartSeries& s : chart.series) {
      for (const auto& p : s.points) xticks.push_back(p.first);
    }
    std::sort(xticks.begin(), xticks.end());
    xticks.erase(std::unique(xticks.begin(), xticks.end()), xticks.end());
  } else {
    const double xs = nice_step(x.hi - x.lo);
    for (double v = std::ceil(x.lo / xs) * xs; v <= x.hi; v += xs) xticks.push_back(v);
  }
  std::optional<double> last_tick;
  for (double v : xticks) {
    // Data-valued ticks can crowd (98,304 beside 131,072): a label too close to the last one is left out.
    if (last_tick && sx(v) - sx(*last_tick) < 64) continue;
    last_tick = v;
    canvas.line(sx(v), kTop + h, sx(v), kTop + h + 5, kInk, 1, false);
    canvas.text(sx(v), kTop + h + 20, tick_text(v), TextAnchor::middle, kInk);
  }
  canvas.line(kLeft, kTop + h, kLeft + w, kTop + h, kInk, 1, false);
  canvas.line(kLeft, kTop, kLeft, kTop + h, kInk, 1, false);
  canvas.text(kLeft + w / 2, kChartHeight - 16, chart.x_label, TextAnchor::middle, kInk);
  canvas.text(12, kTop - 10, chart.y_label, TextAnchor::start, kInk);

  double legend_y = kTop + 10;
  const double legend_x = kLeft + w + 20;
  if (chart.y_rule) {
    canvas.line(kLeft, sy(*chart.y_rule), kLeft + w, sy(*chart.y_rule), kRule, 1.5, true);
    canvas.line(legend_x, legend_y, legend_x + 20, legend_y, kRule, 1.5, true);
    legend_y += legend_text(canvas, legend_x + 26, legend_y + 4, chart.y_rule_label);
  }
  if (chart.x_rule) {
    canvas.line(sx(*chart.x_rule), kTop, sx(*chart.x_rule), kTop + h, kRule, 1.5, true);
    canvas.line(legend_x, legend_y, legend_x + 20, legend_y, kRule, 1.5, true);
    legend_y += legend_text(canvas, legend_x + 26, legend_y + 4, chart.x_rule_label);
  }
  if (chart.front.size() > 1) {
    for (std::size_t i = 1; i < chart.front.size(); ++i) {
      canvas.line(sx(chart.front[i - 1].first), sy(chart.front[i - 1].second), sx(chart.front[i].first),
                  sy(chart.front[i].second), {0, 0, 0}, 3, false);
    }
  }
  if (!chart.front.empty()) {
    canvas.line(legend_x, legend_y, legend_x + 20, legend_y, {0, 0, 0}, 3, false);
    legend_y += legend_text(canvas, legend_x + 26, legend_y + 4, chart.front_label);
  }
  std::vector<LabelBox> labels;
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const ChartSeries& s = chart.series[i];
    const Rgb color = series_color(chart, i);
    for (std::size_t p = 0; s.lines && p + 1 < s.points.size(); ++p) {
      canvas.line(sx(s.points[p].first), sy(s.points[p].second), sx(s.points[p + 1].first), sy(s.points[p + 1].second),
                  color, s.dashed ? 1.5 : 2, s.dashed);
    }
    for (std::size_t p = 0; p < s.points.size(); ++p) {
      const auto [px, py] = s.points[p];
      if (!s.dashed) canvas.circle(sx(px), sy(py), 4, color);
      if (p < s.labels.size()) place_label(canvas, labels, sx(px), sy(py), s.labels[p], kLeft + 0.85 * w);
    }
    if (s.name.empty()) continue;  // a reference the chart's reference_label names once
    if (s.dashed) {
      canvas.line(legend_x, legend_y, legend_x + 20, legend_y, color, 1.5, true);
    } else {
      canvas.circle(legend_x + 10, legend_y, 4, color);
    }
    legend_y += legend_text(canvas, legend_x + 26, legend_y + 4, s.name);
  }
  if (!chart.reference_label.empty()) {
    canvas.line(legend_x, legend_y, legend_x + 20, legend_y, kInk, 1.5, true);
    legend_y += legend_text(canvas, legend_x + 26, legend_y + 4, chart.reference_label);
  }
  for (const MissingPoint& m : chart.missing) {
    const Rgb color = series_color(chart, m.series);
    const double mx = sx(m.x);
    const double my = kTop + 8;
    canvas.line(mx - 5, my - 5, mx + 5, my + 5, color, 2, false);
    canvas.line(mx - 5, my + 5, mx + 5, my - 5, color, 2, false);
    canvas.text(mx + 8, my + 16, m.label, TextAnchor::start, kInk);
  }
  if (!chart.missing.empty()) {
    canvas.line(legend_x + 5, legend_y - 5, legend_x + 15, legend_y + 5, kInk, 2, false);
    canvas.line(legend_x + 5, legend_y + 5, legend_x + 15, legend_y - 5, kInk, 2, false);
    legend_text(canvas, legend_x + 26, legend_y + 4, chart.missing_label);
  }
}

}  // namespace syncsim::chart
