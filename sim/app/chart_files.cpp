#include "chart_files.hpp"

#include <string>
#include <vector>

#include "atomic_file.hpp"

namespace syncsim::app {

void write_chart_files(const std::filesystem::path& stem, const planner::Chart& chart) {
  const std::string svg = planner::render_svg(chart);
  const std::vector<unsigned char> png = planner::render_png(chart);
  write_file_atomically(stem.string() + ".svg", [&](std::ostream& out) { out << svg; });
  write_file_atomically(stem.string() + ".png", [&](std::ostream& out) {
    out.write(reinterpret_cast<const char*>(png.data()), static_cast<std::streamsize>(png.size()));
  });
}

}  // namespace syncsim::app
