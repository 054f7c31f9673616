#pragma once
// A 5 x 7 pixel font for the PNG charts: digits, capital letters and the punctuation chart labels use. Lower-case
// letters are drawn as capitals (a chart label stays readable, and the table stays a page long); a character
// without a glyph is drawn as a hollow box, so a missing one shows instead of vanishing.
#include <array>
#include <cstdint>

namespace syncsim::chart {

inline constexpr int kGlyphWidth = 5;
inline constexpr int kGlyphHeight = 7;

// Row r of the glyph (top first), bit 4 the leftmost pixel.
std::array<std::uint8_t, kGlyphHeight> glyph(char c);

}  // namespace syncsim::chart
