#pragma once
// A chart written as STEM.svg and STEM.png (chart.hpp), each atomically.
#include <filesystem>

#include "syncsim/planner/chart.hpp"

namespace syncsim::app {

void write_chart_files(const std::filesystem::path& stem, const planner::Chart& chart);

}  // namespace syncsim::app
