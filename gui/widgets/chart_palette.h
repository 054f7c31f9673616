#pragma once
// The colours the charts give their series (scaling configurations, convergence runs): Okabe-Ito, so that series
// stay apart for readers with colour-blindness, and print in grey apart too.
#include <QColor>
#include <cstddef>
#include <iterator>

inline QColor chartSeriesColor(std::size_t i) {
  static const QColor kColours[] = {QColor(0x00, 0x72, 0xB2), QColor(0xD5, 0x5E, 0x00), QColor(0x00, 0x9E, 0x73),
                                    QColor(0xCC, 0x79, 0xA7), QColor(0xE6, 0x9F, 0x00), QColor(0x56, 0xB4, 0xE9),
                                    QColor(0xF0, 0xE4, 0x42), QColor(0x00, 0x00, 0x00)};
  return kColours[i % std::size(kColours)];
}
