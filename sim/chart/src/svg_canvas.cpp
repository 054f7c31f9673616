// render_svg: draw_chart's primitives as SVG elements (numbers with 1 decimal, so the file is deterministic).
#include <fmt/format.h>

#include "syncsim/chart/chart.hpp"

namespace syncsim::chart {

namespace {

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string color(Rgb c) {
  return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b);
}

class SvgCanvas final : public Canvas {
 public:
  std::string body;
  void line(double x1, double y1, double x2, double y2, Rgb c, double width, bool dashed) override {
    body +=
        fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="{:.1f}"{}/>)",
                    x1, y1, x2, y2, color(c), width, dashed ? R"( stroke-dasharray="6 4")" : "");
    body += '\n';
  }
  void circle(double x, double y, double radius, Rgb c) override {
    body += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="{:.1f}" fill="{}"/>)", x, y, radius, color(c));
    body += '\n';
  }
  void text(double x, double y, const std::string& text, TextAnchor anchor, Rgb c) override {
    const char* a = anchor == TextAnchor::start ? "start" : anchor == TextAnchor::middle ? "middle" : "end";
    body += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="{}" fill="{}">{}</text>)", x, y, a, color(c),
                        escape(text));
    body += '\n';
  }
};

}  // namespace

std::string render_svg(const Chart& chart) {
  SvgCanvas canvas;
  draw_chart(chart, canvas);
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"DejaVu Sans, sans-serif\" font-size=\"12\">\n<rect width=\"{0}\" height=\"{1}\" "
      "fill=\"white\"/>\n{2}</svg>\n",
      kChartWidth, kChartHeight, canvas.body);
}

}  // namespace syncsim::chart
