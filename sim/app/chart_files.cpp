#include "chart_files.hpp"

#include <vector>

namespace syncsim::app {

namespace {

constexpr const char* kChartExtensions[] = {".svg", ".png", ".pdf"};

void add_bytes(OutputSet& set, const std::string& name, const std::vector<unsigned char>& bytes) {
  set.add(name, [&](std::ostream& out) {
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  });
}

}  // namespace

std::vector<std::string> chart_file_names(const std::string& stem) {
  std::vector<std::string> out;
  for (const char* extension : kChartExtensions) out.push_back(stem + extension);
  return out;
}

void add_chart_files(OutputSet& set, const std::string& stem, const chart::Chart& chart) {
  const std::string svg = chart::render_svg(chart);
  set.add(stem + ".svg", [&](std::ostream& out) { out << svg; });
  add_bytes(set, stem + ".png", chart::render_png(chart));
  add_bytes(set, stem + ".pdf", chart::render_pdf(chart));
}

void remove_chart_files(OutputSet& set, const std::string& stem) {
  for (const std::string& name : chart_file_names(stem)) set.remove(name);
}

}  // namespace syncsim::app
