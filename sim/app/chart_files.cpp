#include "chart_files.hpp"

#include <vector>

namespace syncsim::app {

void add_chart_files(OutputSet& set, const std::string& stem, const chart::Chart& chart) {
  const std::string svg = chart::render_svg(chart);
  const std::vector<unsigned char> png = chart::render_png(chart);
  set.add(stem + ".svg", [&](std::ostream& out) { out << svg; });
  set.add(stem + ".png", [&](std::ostream& out) {
    out.write(reinterpret_cast<const char*>(png.data()), static_cast<std::streamsize>(png.size()));
  });
}

void remove_chart_files(OutputSet& set, const std::string& stem) {
  set.remove(stem + ".svg");
  set.remove(stem + ".png");
}

}  // namespace syncsim::app
