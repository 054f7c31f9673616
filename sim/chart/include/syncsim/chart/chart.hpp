#pragma once
// Line charts for `syncsim plan`, drawn once through a Canvas and rendered three times: as SVG (written here as
// text, so that the labels stay searchable text and the file a diff), and through cairo as an anti-aliased PNG and a
// vector PDF, with Pango laying out the text in DejaVu Sans (cairo's own SVG surface would turn every label into
// glyph outlines). Every rendering is deterministic: the same chart gives the same bytes.
//
//   Chart c{"Throughput", "GPUs", "samples/s"};
//   c.log_x = true;
//   c.series.push_back({"A100 / ib400", {{8, 2900}, {16, 5700}}});
//   std::string svg = render_svg(c);
//   std::vector<unsigned char> png = render_png(c);
//   std::vector<unsigned char> pdf = render_pdf(c);
//
// Layout: a plot box with 5 ticks per axis (x ticks at the data's x values on a log axis), series in a fixed
// palette with round markers (optionally labelled), reference series dashed, optional dashed horizontal and
// vertical rules (a threshold, a deadline), an optional front drawn thick in black (the Pareto front), missing points
// as an x at the top, the legend at the right.
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace syncsim::chart {

struct Rgb {
  unsigned char r = 0, g = 0, b = 0;
};

struct ChartSeries {
  std::string name;
  std::vector<std::pair<double, double>> points = {};  // drawn in this order
  bool lines = true;                                   // false: markers only
  bool dashed = false;                                 // a reference (ideal scaling): dashed line, no markers
  std::vector<std::string> labels = {};                // beside each point (its GPU count); empty: none
  int color = -1;                                      // palette index; -1: the series' position
};

// A point the data lacks (a run that never reached its target): an x at the plot's top, in its series' colour,
// with a label, so that a gap reads as a gap and not as a point left out.
struct MissingPoint {
  double x = 0;
  std::size_t series = 0;
  std::string label;
};

struct Chart {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_x = false;
  bool log_y = false;  // ticks at whole decades (a log-log plot of wall time against GPUs)
  std::vector<ChartSeries> series;
  std::optional<double> y_rule;  // dashed horizontal line
  std::string y_rule_label;
  std::optional<double> x_rule;  // dashed vertical line (a deadline on a time axis)
  std::string x_rule_label;
  std::vector<std::pair<double, double>> front;  // thick black polyline (empty: none)
  std::string front_label;
  std::string reference_label;  // the legend's one entry for the unnamed dashed series (ideal scaling)
  std::vector<MissingPoint> missing;
  std::string missing_label;  // the legend's words for them
};

enum class TextAnchor { start, middle, end };

// What draw_chart needs from an output format; coordinates in pixels, y down.
class Canvas {
 public:
  virtual ~Canvas() = default;
  virtual void line(double x1, double y1, double x2, double y2, Rgb color, double width, bool dashed) = 0;
  virtual void circle(double x, double y, double radius, Rgb color) = 0;
  virtual void text(double x, double y, const std::string& text, TextAnchor anchor, Rgb color) = 0;
};

inline constexpr int kChartWidth = 800;
inline constexpr int kChartHeight = 480;

void draw_chart(const Chart& chart, Canvas& canvas);

std::string render_svg(const Chart& chart);
std::vector<unsigned char> render_png(const Chart& chart);  // kChartWidth x kChartHeight pixels, RGB
std::vector<unsigned char> render_pdf(const Chart& chart);  // one page, one point per pixel

}  // namespace syncsim::chart
