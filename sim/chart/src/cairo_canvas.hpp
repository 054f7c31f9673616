#pragma once
// CairoCanvas: draw_chart's primitives on a cairo context (any surface: image for PNG, PDF), with text laid out by
// Pango in DejaVu Sans (fonts-dejavu-core), anti-aliased. The caller owns the context and its surface.
#include <cairo.h>
#include <pango/pangocairo.h>

#include "syncsim/chart/chart.hpp"

namespace syncsim::chart {

// The charts' font: DejaVu Sans at 12 px (fontconfig falls back to another sans-serif face where it is missing).
inline constexpr const char* kChartFont = "DejaVu Sans";
inline constexpr double kChartFontPx = 12;

class CairoCanvas final : public Canvas {
 public:
  // Paints the whole chart area white first.
  explicit CairoCanvas(cairo_t* cr);
  ~CairoCanvas() override;
  CairoCanvas(const CairoCanvas&) = delete;
  CairoCanvas& operator=(const CairoCanvas&) = delete;

  void line(double x1, double y1, double x2, double y2, Rgb color, double width, bool dashed) override;
  void circle(double x, double y, double radius, Rgb color) override;
  void text(double x, double y, const std::string& text, TextAnchor anchor, Rgb color) override;

 private:
  cairo_t* cr_;
  PangoLayout* layout_;
};

}  // namespace syncsim::chart
