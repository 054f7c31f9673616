#pragma once
// The colours the charts give their series (scaling configurations, convergence runs): Okabe-Ito
// (models/okabe_ito.h), so that series stay apart for readers with colour-blindness, and print in grey apart too.
#include <QColor>
#include <cstddef>

#include "models/okabe_ito.h"

inline QColor chartSeriesColor(std::size_t i) {
  return okabeItoColor(i);
}
