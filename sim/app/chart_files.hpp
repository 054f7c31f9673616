#pragma once
// A chart as STEM.svg and STEM.png (chart.hpp), two files of an output set (output_set.hpp).
#include <string>

#include "syncsim/chart/chart.hpp"
#include "syncsim/core/output_set.hpp"

namespace syncsim::app {

void add_chart_files(OutputSet& set, const std::string& stem, const chart::Chart& chart);

// STEM.svg and STEM.png of an earlier run, which this one does not draw, go with the swap.
void remove_chart_files(OutputSet& set, const std::string& stem);

}  // namespace syncsim::app
