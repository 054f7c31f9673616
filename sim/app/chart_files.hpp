#pragma once
// A chart as STEM.svg, STEM.png and STEM.pdf (chart.hpp), three files of an output set (output_set.hpp).
#include <string>
#include <vector>

#include "syncsim/chart/chart.hpp"
#include "syncsim/core/output_set.hpp"

namespace syncsim::app {

// STEM.svg, STEM.png, STEM.pdf: the names a command checks before it runs (check_output_dir).
std::vector<std::string> chart_file_names(const std::string& stem);

void add_chart_files(OutputSet& set, const std::string& stem, const chart::Chart& chart);

// STEM.svg, STEM.png and STEM.pdf of an earlier run, which this one does not draw, go with the swap.
void remove_chart_files(OutputSet& set, const std::string& stem);

}  // namespace syncsim::app
