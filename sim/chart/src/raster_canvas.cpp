// render_png: draw_chart's primitives rasterized into an RGB buffer, then encode_png. Lines are stamped as discs
// along their length (no anti-aliasing: a chart's lines are few and the file stays a small palette image).
#include <algorithm>
#include <cmath>

#include "pixel_font.hpp"
#include "syncsim/chart/chart.hpp"
#include "syncsim/chart/png_encoder.hpp"

namespace syncsim::chart {

namespace {

constexpr double kDashOn = 6, kDashOff = 4;
constexpr int kGlyphAdvance = kGlyphWidth + 1;

class RasterCanvas final : public Canvas {
 public:
  RasterCanvas() : pixels_(static_cast<std::size_t>(kChartWidth) * kChartHeight * 3, 255) {}

  void line(double x1, double y1, double x2, double y2, Rgb c, double width, bool dashed) override {
    const double length = std::hypot(x2 - x1, y2 - y1);
    const int steps = std::max(1, static_cast<int>(std::ceil(length * 2)));
    for (int i = 0; i <= steps; ++i) {
      const double t = static_cast<double>(i) / steps;
      if (dashed && std::fmod(t * length, kDashOn + kDashOff) > kDashOn) continue;
      disc(x1 + (x2 - x1) * t, y1 + (y2 - y1) * t, width / 2, c);
    }
  }

  void circle(double x, double y, double radius, Rgb c) override { disc(x, y, radius, c); }

  void text(double x, double y, const std::string& text, TextAnchor anchor, Rgb c) override {
    const double width = static_cast<double>(text.size()) * kGlyphAdvance;
    double left = anchor == TextAnchor::start ? x : anchor == TextAnchor::middle ? x - width / 2 : x - width;
    // (x, y) is the baseline, as in SVG.
    const int top = static_cast<int>(std::lround(y)) - kGlyphHeight;
    for (char ch : text) {
      const auto rows = glyph(ch);
      for (int r = 0; r < kGlyphHeight; ++r) {
        for (int col = 0; col < kGlyphWidth; ++col) {
          if ((rows[static_cast<std::size_t>(r)] >> (kGlyphWidth - 1 - col) & 1) != 0) {
            set(static_cast<int>(std::lround(left)) + col, top + r, c);
          }
        }
      }
      left += kGlyphAdvance;
    }
  }

  const std::vector<unsigned char>& pixels() const { return pixels_; }

 private:
  void set(int x, int y, Rgb c) {
    if (x < 0 || y < 0 || x >= kChartWidth || y >= kChartHeight) return;
    const std::size_t i = (static_cast<std::size_t>(y) * kChartWidth + static_cast<std::size_t>(x)) * 3;
    pixels_[i] = c.r;
    pixels_[i + 1] = c.g;
    pixels_[i + 2] = c.b;
  }

  void disc(double cx, double cy, double radius, Rgb c) {
    const double r = std::max(radius, 0.5);
    for (int y = static_cast<int>(std::floor(cy - r)); y <= static_cast<int>(std::ceil(cy + r)); ++y) {
      for (int x = static_cast<int>(std::floor(cx - r)); x <= static_cast<int>(std::ceil(cx + r)); ++x) {
        if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r) set(x, y, c);
      }
    }
  }

  std::vector<unsigned char> pixels_;
};

}  // namespace

std::vector<unsigned char> render_png(const Chart& chart) {
  RasterCanvas canvas;
  draw_chart(chart, canvas);
  return encode_png(kChartWidth, kChartHeight, canvas.pixels());
}

}  // namespace syncsim::chart
