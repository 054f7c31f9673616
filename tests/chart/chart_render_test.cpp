// The chart's three renderings: the PNG decodes (with cairo) to the chart's size and is anti-aliased, the SVG is
// well-formed XML with its labels as text, the PDF is one PDF file; each is the same bytes for the same chart.
#include <cairo.h>

#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "syncsim/chart/chart.hpp"

using namespace syncsim::chart;

namespace {

Chart sample_chart() {
  Chart c;
  c.title = "Throughput";
  c.x_label = "GPUs";
  c.y_label = "samples/s";
  c.log_x = true;
  c.y_rule = 1000;
  c.y_rule_label = "target";
  c.series.push_back({"A100 / <ib>", {{8, 790}, {16, 1580}, {32, 1090}}, true});
  c.series.push_back({"", {{8, 790}, {16, 1580}, {32, 3160}}, true, true});
  c.reference_label = "ideal";
  return c;
}

struct PngReader {
  const std::vector<unsigned char>* bytes;
  std::size_t at = 0;
};

cairo_status_t read_png(void* closure, unsigned char* data, unsigned int length) {
  auto* r = static_cast<PngReader*>(closure);
  if (r->at + length > r->bytes->size()) return CAIRO_STATUS_READ_ERROR;
  std::memcpy(data, r->bytes->data() + r->at, length);
  r->at += length;
  return CAIRO_STATUS_SUCCESS;
}

using Surface = std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)>;

Surface decode_png(const std::vector<unsigned char>& png) {
  PngReader reader{&png};
  return Surface(cairo_image_surface_create_from_png_stream(read_png, &reader), cairo_surface_destroy);
}

// Well-formed as far as a chart's SVG goes: every element closed, in order (no comments, CDATA or entities but the
// five predefined ones).
bool balanced_xml(const std::string& svg) {
  std::vector<std::string> open;
  for (std::size_t at = svg.find('<'); at != std::string::npos; at = svg.find('<', at + 1)) {
    const std::size_t end = svg.find('>', at);
    if (end == std::string::npos) return false;
    const std::string tag = svg.substr(at + 1, end - at - 1);
    if (tag.starts_with("/")) {
      if (open.empty() || open.back() != tag.substr(1)) return false;
      open.pop_back();
    } else if (!tag.ends_with("/")) {
      open.push_back(tag.substr(0, tag.find(' ')));
    }
  }
  return open.empty();
}

}  // namespace

TEST_CASE("the PNG decodes to the chart's size and its text and lines are anti-aliased") {
  const auto png = render_png(sample_chart());
  const Surface image = decode_png(png);
  REQUIRE(cairo_surface_status(image.get()) == CAIRO_STATUS_SUCCESS);
  CHECK(cairo_image_surface_get_width(image.get()) == kChartWidth);
  CHECK(cairo_image_surface_get_height(image.get()) == kChartHeight);
  // Anti-aliasing blends every edge with the white behind it: far more colours than the chart's dozen inks. The
  // title's row is inked (a pixel font of capitals only would draw it too, but in two colours).
  cairo_surface_flush(image.get());
  const unsigned char* data = cairo_image_surface_get_data(image.get());
  const int stride = cairo_image_surface_get_stride(image.get());
  std::set<std::uint32_t> colours, title_colours;
  for (int y = 0; y < kChartHeight; ++y) {
    for (int x = 0; x < kChartWidth; ++x) {
      std::uint32_t pixel = 0;
      std::memcpy(&pixel, data + static_cast<std::ptrdiff_t>(y) * stride + 4 * x, 4);
      colours.insert(pixel & 0xFFFFFFu);
      if (y >= 10 && y <= 28) title_colours.insert(pixel & 0xFFFFFFu);
    }
  }
  CHECK(colours.size() > 50);
  CHECK(title_colours.size() > 5);
}

TEST_CASE("the SVG is well-formed XML with the labels as text") {
  const std::string svg = render_svg(sample_chart());
  CHECK_THAT(svg, Catch::StartsWith("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  CHECK(balanced_xml(svg));
  CHECK_THAT(svg, Catch::Contains(">A100 / &lt;ib&gt;</text>"));
  CHECK_THAT(svg, Catch::Contains(">Throughput</text>") && Catch::Contains(">target</text>"));
  CHECK_THAT(svg, Catch::Contains("stroke-dasharray"));
}

TEST_CASE("a legend entry longer than the right margin wraps at spaces onto lines that fit") {
  Chart c = sample_chart();
  c.reference_label = "ideal: linear from the smallest count";
  const std::string svg = render_svg(c);
  // The margin holds about 26 characters: the words up to that length on the first line, the rest below.
  CHECK_THAT(svg, Catch::Contains(">ideal: linear from the</text>") && Catch::Contains(">smallest count</text>"));
  CHECK_THAT(svg, !Catch::Contains(">ideal: linear from the smallest"));
  // A single word longer than a line is left whole rather than cut.
  c.reference_label = std::string(40, 'x');
  CHECK_THAT(render_svg(c), Catch::Contains(">" + std::string(40, 'x') + "</text>"));
}

TEST_CASE("the PDF is one PDF document with the chart's title") {
  const auto pdf = render_pdf(sample_chart());
  const std::string text(pdf.begin(), pdf.end());
  CHECK_THAT(text, Catch::StartsWith("%PDF-"));
  CHECK_THAT(text, Catch::EndsWith("%%EOF\n"));
  CHECK_THAT(text, Catch::Contains("/Title (Throughput)"));
}

TEST_CASE("every rendering is the same bytes for the same chart, and other bytes for another") {
  const Chart c = sample_chart();
  CHECK(render_svg(c) == render_svg(c));
  CHECK(render_png(c) == render_png(c));
  CHECK(render_pdf(c) == render_pdf(c));
  Chart other = c;
  other.series[0].points[2].second = 1200;
  CHECK(render_png(other) != render_png(c));
  CHECK(render_pdf(other) != render_pdf(c));
}
