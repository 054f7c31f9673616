#pragma once
// encode_png: an 8-bit RGB image as a PNG file, with no image library.
//
// PNG = signature, IHDR (size; 8-bit palette when the image has at most 256 colours, else truecolour), PLTE, IDAT (a
// zlib stream of the rows, each prefixed with filter type 0), IEND; every chunk ends with a CRC-32 of its type and
// data. The zlib stream uses DEFLATE's "stored" blocks (no compression; RFC 1951 §3.2.4) followed by an Adler-32 of the
// raw bytes: larger files than a real compressor writes (an 800 x 480 chart is ~385 KB), but every viewer reads them,
// and the encoder fits in a page.
#include <cstdint>
#include <span>
#include <vector>

namespace syncsim::chart {

// `rgb` holds width x height x 3 bytes, rows top to bottom.
std::vector<unsigned char> encode_png(int width, int height, std::span<const unsigned char> rgb);

std::uint32_t crc32(std::span<const unsigned char> bytes);
std::uint32_t adler32(std::span<const unsigned char> bytes);

}  // namespace syncsim::chart
