#pragma once
// The Okabe-Ito palette (Okabe and Ito, "Color Universal Design", 2008): eight colours that stay apart for readers
// with any common colour blindness, and in grey print. Defined here once; the charts' series (chart_palette.h) and
// the jobs of a multi-job trace (job_colors.h) take it in this order.
#include <QColor>
#include <array>
#include <cstddef>

inline constexpr std::array<QRgb, 8> kOkabeIto{
    0xFF0072B2,  // blue
    0xFFD55E00,  // vermillion
    0xFF009E73,  // bluish green
    0xFFCC79A7,  // reddish purple
    0xFFE69F00,  // orange
    0xFF56B4E9,  // sky blue
    0xFFF0E442,  // yellow
    0xFF000000,  // black
};

// The i-th colour, round and round.
inline QColor okabeItoColor(std::size_t i) {
  return QColor::fromRgb(kOkabeIto[i % kOkabeIto.size()]);
}
