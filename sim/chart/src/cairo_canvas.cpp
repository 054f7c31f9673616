#include "cairo_canvas.hpp"

namespace syncsim::chart {

namespace {

// The SVG canvas's dash pattern, so that a reference line looks alike in every format.
constexpr double kDash[] = {6, 4};

void set_color(cairo_t* cr, Rgb c) {
  cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}

}  // namespace

CairoCanvas::CairoCanvas(cairo_t* cr) : cr_(cr), layout_(pango_cairo_create_layout(cr)) {
  // Hinting off: glyph positions then come from the font's outlines alone, the same at every size and surface,
  // so text measures alike in the PNG and the PDF.
  cairo_font_options_t* options = cairo_font_options_create();
  cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY);
  cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE);
  cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF);
  pango_cairo_context_set_font_options(pango_layout_get_context(layout_), options);
  cairo_font_options_destroy(options);
  PangoFontDescription* font = pango_font_description_from_string(kChartFont);
  pango_font_description_set_absolute_size(font, kChartFontPx * PANGO_SCALE);
  pango_layout_set_font_description(layout_, font);
  pango_font_description_free(font);
  pango_layout_context_changed(layout_);

  cairo_set_source_rgb(cr_, 1, 1, 1);
  cairo_paint(cr_);
  cairo_set_line_cap(cr_, CAIRO_LINE_CAP_BUTT);
  cairo_set_line_join(cr_, CAIRO_LINE_JOIN_ROUND);
}

CairoCanvas::~CairoCanvas() {
  g_object_unref(layout_);
}

void CairoCanvas::line(double x1, double y1, double x2, double y2, Rgb color, double width, bool dashed) {
  cairo_save(cr_);
  set_color(cr_, color);
  cairo_set_line_width(cr_, width);
  if (dashed) cairo_set_dash(cr_, kDash, 2, 0);
  cairo_move_to(cr_, x1, y1);
  cairo_line_to(cr_, x2, y2);
  cairo_stroke(cr_);
  cairo_restore(cr_);
}

void CairoCanvas::circle(double x, double y, double radius, Rgb color) {
  set_color(cr_, color);
  cairo_new_sub_path(cr_);
  cairo_arc(cr_, x, y, radius, 0, 2 * G_PI);
  cairo_fill(cr_);
}

void CairoCanvas::text(double x, double y, const std::string& text, TextAnchor anchor, Rgb color) {
  pango_layout_set_text(layout_, text.c_str(), static_cast<int>(text.size()));
  PangoRectangle logical;
  pango_layout_get_pixel_extents(layout_, nullptr, &logical);
  const double width = logical.width;
  const double left = anchor == TextAnchor::start ? x : anchor == TextAnchor::middle ? x - width / 2 : x - width;
  // (x, y) is the baseline, as in SVG; Pango places a layout by its top-left corner.
  const double baseline = static_cast<double>(pango_layout_get_baseline(layout_)) / PANGO_SCALE;
  set_color(cr_, color);
  cairo_move_to(cr_, left, y - baseline);
  pango_cairo_show_layout(cr_, layout_);
}

}  // namespace syncsim::chart
