// The PNG encoder against published checksums and the PNG layout, and the charts it draws.
#include <catch2/catch.hpp>

#include <string>

#include "syncsim/chart/chart.hpp"
#include "syncsim/chart/png_encoder.hpp"

using namespace syncsim::chart;

namespace {

std::span<const unsigned char> bytes_of(const std::string& s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

std::uint32_t be32(const std::vector<unsigned char>& b, std::size_t at) {
  return (std::uint32_t{b[at]} << 24) | (std::uint32_t{b[at + 1]} << 16) | (std::uint32_t{b[at + 2]} << 8) | b[at + 3];
}

}  // namespace

TEST_CASE("CRC-32 and Adler-32 match their published check values") {
  // The "123456789" check values of the CRC catalogue and of RFC 1950's Adler-32.
  CHECK(crc32(bytes_of("123456789")) == 0xCBF43926u);
  CHECK(adler32(bytes_of("Wikipedia")) == 0x11E60398u);
  CHECK(adler32(bytes_of("")) == 1u);
}

TEST_CASE("a PNG has the signature, IHDR with the size, and chunks whose CRCs check") {
  const int w = 3, h = 2;
  std::vector<unsigned char> rgb(static_cast<std::size_t>(w * h * 3), 255);
  rgb[0] = 0;  // two colours: a palette image
  const auto png = encode_png(w, h, rgb);
  REQUIRE(png.size() > 8);
  const std::vector<unsigned char> signature = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  CHECK(std::vector<unsigned char>(png.begin(), png.begin() + 8) == signature);
  std::size_t at = 8;
  std::vector<std::string> types;
  while (at < png.size()) {
    const std::uint32_t length = be32(png, at);
    const std::string type(png.begin() + static_cast<std::ptrdiff_t>(at + 4),
                           png.begin() + static_cast<std::ptrdiff_t>(at + 8));
    types.push_back(type);
    const std::span<const unsigned char> checked(png.data() + at + 4, length + 4);
    CHECK(be32(png, at + 8 + length) == crc32(checked));
    if (type == "IHDR") {
      CHECK(be32(png, at + 8) == 3u);
      CHECK(be32(png, at + 12) == 2u);
      CHECK(png[at + 17] == 3);  // colour type: palette
    }
    at += 12 + length;
  }
  CHECK(at == png.size());
  CHECK(types == std::vector<std::string>{"IHDR", "PLTE", "IDAT", "IEND"});
}

TEST_CASE("a stored deflate stream splits into 65535-byte blocks and ends with the Adler-32") {
  // 200 x 200 white RGB: 200 rows of 1 + 200 palette indices = 40200 bytes: one block. 400 x 200: 80200, two.
  for (const int w : {200, 400}) {
    std::vector<unsigned char> rgb(static_cast<std::size_t>(w * 200 * 3), 255);
    const auto png = encode_png(w, 200, rgb);
    const std::size_t raw = static_cast<std::size_t>(200 * (w + 1));
    const std::size_t blocks = (raw + 65534) / 65535;
    // signature + IHDR (25) + PLTE (12 + 3) + IDAT (12 + 2 + 5 per block + raw + 4) + IEND (12)
    CHECK(png.size() == 8 + 25 + 15 + 12 + 2 + 5 * blocks + raw + 4 + 12);
  }
}

TEST_CASE("charts render the same primitives as SVG and PNG") {
  Chart c;
  c.title = "Throughput";
  c.x_label = "GPUs";
  c.y_label = "samples/s";
  c.log_x = true;
  c.y_rule = 1000;
  c.series.push_back({"A100 / <ib>", {{8, 790}, {16, 1580}, {32, 1090}}, true});
  const std::string svg = render_svg(c);
  CHECK_THAT(svg, Catch::StartsWith("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  CHECK_THAT(svg, Catch::Contains("A100 / &lt;ib&gt;"));
  CHECK_THAT(svg, Catch::Contains("stroke-dasharray"));
  CHECK(render_svg(c) == svg);  // deterministic
  const auto png = render_png(c);
  CHECK(be32(png, 16) == static_cast<std::uint32_t>(kChartWidth));
  CHECK(be32(png, 20) == static_cast<std::uint32_t>(kChartHeight));
}
