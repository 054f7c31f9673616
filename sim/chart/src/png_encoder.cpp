#include "syncsim/chart/png_encoder.hpp"

#include <array>
#include <map>
#include <stdexcept>
#include <string_view>

namespace syncsim::chart {

namespace {

constexpr std::size_t kStoredBlockMax = 65535;  // LEN is 16 bits
constexpr std::uint32_t kAdlerModulus = 65521;  // largest prime below 2^16

std::array<std::uint32_t, 256> make_crc_table() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t n = 0; n < 256; ++n) {
    std::uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1) != 0 ? 0xEDB88320u ^ (c >> 1) : c >> 1;  // the reflected polynomial
    table[n] = c;
  }
  return table;
}

void put32(std::vector<unsigned char>& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<unsigned char>(v >> shift));
}

void chunk(std::vector<unsigned char>& out, std::string_view type, std::span<const unsigned char> data) {
  put32(out, static_cast<std::uint32_t>(data.size()));
  const std::size_t start = out.size();
  out.insert(out.end(), type.begin(), type.end());
  out.insert(out.end(), data.begin(), data.end());
  put32(out, crc32(std::span(out).subspan(start)));
}

}  // namespace

std::uint32_t crc32(std::span<const unsigned char> bytes) {
  static const std::array<std::uint32_t, 256> table = make_crc_table();
  std::uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : bytes) c = table[(c ^ b) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

std::uint32_t adler32(std::span<const unsigned char> bytes) {
  std::uint32_t a = 1, b = 0;
  for (unsigned char byte : bytes) {
    a = (a + byte) % kAdlerModulus;
    b = (b + a) % kAdlerModulus;
  }
  return (b << 16) | a;
}

std::vector<unsigned char> encode_png(int width, int height, std::span<const unsigned char> rgb) {
  if (width <= 0 || height <= 0 ||
      rgb.size() != static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3) {
    throw std::invalid_argument("encode_png: the pixel buffer does not match the size");
  }
  // Charts use a handful of colours: with at most 256 the image is stored as palette indices, a third the size.
  std::map<std::uint32_t, unsigned char> index_of;
  std::vector<unsigned char> palette;
  for (std::size_t i = 0; i < rgb.size() && index_of.size() <= 256; i += 3) {
    const std::uint32_t key = (std::uint32_t{rgb[i]} << 16) | (std::uint32_t{rgb[i + 1]} << 8) | rgb[i + 2];
    if (index_of.emplace(key, static_cast<unsigned char>(index_of.size() & 0xFF)).second) {
      palette.insert(palette.end(), {rgb[i], rgb[i + 1], rgb[i + 2]});
    }
  }
  const bool indexed = index_of.size() <= 256;
  std::vector<unsigned char> raw;  // filter byte 0 ("none") before each row
  const std::size_t row = static_cast<std::size_t>(width) * 3;
  for (int y = 0; y < height; ++y) {
    raw.push_back(0);
    const std::size_t begin = row * static_cast<std::size_t>(y);
    for (std::size_t i = begin; i < begin + row; i += 3) {
      if (indexed) {
        raw.push_back(index_of.at((std::uint32_t{rgb[i]} << 16) | (std::uint32_t{rgb[i + 1]} << 8) | rgb[i + 2]));
      } else {
        raw.insert(raw.end(), {rgb[i], rgb[i + 1], rgb[i + 2]});
      }
    }
  }

  std::vector<unsigned char> z = {0x78, 0x01};  // deflate, 32 KiB window, no dictionary, fastest
  for (std::size_t at = 0; at < raw.size() || raw.empty(); at += kStoredBlockMax) {
    const std::size_t n = std::min(kStoredBlockMax, raw.size() - at);
    const bool last = at + n >= raw.size();
    z.push_back(last ? 1 : 0);  // BFINAL, BTYPE 00 = stored
    z.push_back(static_cast<unsigned char>(n & 0xFF));
    z.push_back(static_cast<unsigned char>(n >> 8));
    z.push_back(static_cast<unsigned char>(~n & 0xFF));
    z.push_back(static_cast<unsigned char>((~n >> 8) & 0xFF));
    z.insert(z.end(), raw.begin() + static_cast<std::ptrdiff_t>(at), raw.begin() + static_cast<std::ptrdiff_t>(at + n));
    if (last) break;
  }
  put32(z, adler32(raw));

  std::vector<unsigned char> out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  std::vector<unsigned char> header;
  put32(header, static_cast<std::uint32_t>(width));
  put32(header, static_cast<std::uint32_t>(height));
  // 8 bits; colour type 3 (palette) or 2 (truecolour RGB); deflate; adaptive filters; no interlace.
  header.insert(header.end(), {8, static_cast<unsigned char>(indexed ? 3 : 2), 0, 0, 0});
  chunk(out, "IHDR", header);
  if (indexed) chunk(out, "PLTE", palette);
  chunk(out, "IDAT", z);
  chunk(out, "IEND", {});
  return out;
}

}  // namespace syncsim::chart
