// render_png and render_pdf: draw_chart through a CairoCanvas on cairo's image surface (written by cairo's PNG
// writer) and on its PDF surface, each into memory.
#include <cairo-pdf.h>
#include <cairo.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "cairo_canvas.hpp"
#include "syncsim/chart/chart.hpp"

namespace syncsim::chart {

namespace {

// The PDF's creation date: cairo writes the current time unless told one, which would make two renderings of the
// same chart differ. A fixed date keeps the bytes a function of the chart alone.
constexpr const char* kPdfDate = "2000-01-01T00:00:00Z";

cairo_status_t append(void* closure, const unsigned char* data, unsigned int length) {
  auto* out = static_cast<std::vector<unsigned char>*>(closure);
  out->insert(out->end(), data, data + length);
  return CAIRO_STATUS_SUCCESS;
}

struct SurfaceDeleter {
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};
using Surface = std::unique_ptr<cairo_surface_t, SurfaceDeleter>;

void check(cairo_status_t status, const char* what) {
  if (status != CAIRO_STATUS_SUCCESS) {
    throw std::runtime_error(std::string("cairo: ") + what + ": " + cairo_status_to_string(status));
  }
}

void draw_on(cairo_surface_t* surface, const Chart& chart) {
  cairo_t* cr = cairo_create(surface);
  {
    CairoCanvas canvas(cr);
    draw_chart(chart, canvas);
  }
  const cairo_status_t status = cairo_status(cr);
  cairo_destroy(cr);
  check(status, "drawing the chart");
}

}  // namespace

std::vector<unsigned char> render_png(const Chart& chart) {
  // RGB24: an opaque image, written as an RGB PNG without an alpha channel.
  Surface surface(cairo_image_surface_create(CAIRO_FORMAT_RGB24, kChartWidth, kChartHeight));
  draw_on(surface.get(), chart);
  std::vector<unsigned char> out;
  check(cairo_surface_write_to_png_stream(surface.get(), append, &out), "writing the PNG");
  return out;
}

std::vector<unsigned char> render_pdf(const Chart& chart) {
  std::vector<unsigned char> out;
  // One PDF point per pixel: the page is the chart's size in points (11.1 x 6.7 inches).
  Surface surface(cairo_pdf_surface_create_for_stream(append, &out, kChartWidth, kChartHeight));
  cairo_pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_CREATE_DATE, kPdfDate);
  cairo_pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_TITLE, chart.title.c_str());
  draw_on(surface.get(), chart);
  // A stream surface writes its last bytes (the cross-reference table, the trailer) when finished.
  cairo_surface_finish(surface.get());
  check(cairo_surface_status(surface.get()), "writing the PDF");
  return out;
}

}  // namespace syncsim::chart
