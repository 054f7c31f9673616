// The log-log chart of docs/performance.md's scale benchmark: wall time against GPUs, one line per workload and
// tool, from the CSV bench/scale.py writes (workload,gpus,tool,simulated_s,wall_s,peak_rss_mb):
//   bench_scale_plot scale.csv docs/images/scale      # writes scale.svg and scale.png
// A dashed line through each syncsim series' first point shows what linear cost would be, so a bend away from
// it (the square of the GPU count, as before symmetry) reads at a glance.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "syncsim/chart/chart.hpp"

namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, ',')) fields.push_back(field);
  return fields;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: bench_scale_plot ROWS.csv OUTPUT_PREFIX\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  std::string line;
  if (!in || !std::getline(in, line) || line.rfind("workload,gpus,tool,", 0) != 0) {
    std::cerr << "bench_scale_plot: " << argv[1] << ": expected bench/scale.py's CSV (workload,gpus,tool,...)\n";
    return 2;
  }
  std::map<std::string, std::vector<std::pair<double, double>>> series;  // "workload (tool)" -> (gpus, wall)
  std::vector<std::string> order;
  int line_number = 1;
  while (std::getline(in, line)) {
    ++line_number;
    const std::vector<std::string> f = split(line);
    if (f.size() != 6) {
      std::cerr << fmt::format("bench_scale_plot: {}:{}: expected 6 fields, got {}\n", argv[1], line_number, f.size());
      return 2;
    }
    const std::string name = f[2] == "syncsim" ? f[0] : fmt::format("{} ({})", f[0], f[2]);
    if (!series.count(name)) order.push_back(name);
    try {
      series[name].emplace_back(std::stod(f[1]), std::stod(f[4]));
    } catch (const std::exception&) {
      std::cerr << fmt::format("bench_scale_plot: {}:{}: gpus and wall_s must be numbers\n", argv[1], line_number);
      return 2;
    }
  }
  syncsim::chart::Chart chart;
  chart.title = "Wall time of one simulation against GPUs (one core)";
  chart.x_label = "GPUs";
  chart.y_label = "wall time, s";
  chart.log_x = true;
  chart.log_y = true;
  chart.reference_label = "linear in GPUs";
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto& points = series[order[i]];
    chart.series.push_back({order[i], points});
    chart.series.back().color = static_cast<int>(i);
    if (order[i].find('(') != std::string::npos || points.size() < 2) continue;
    syncsim::chart::ChartSeries linear{"", {}, true, true};
    for (const auto& [gpus, wall] : points) linear.points.emplace_back(gpus, points[0].second * gpus / points[0].first);
    linear.color = static_cast<int>(i);
    chart.series.push_back(linear);
  }
  const std::string prefix = argv[2];
  std::ofstream(prefix + ".svg") << syncsim::chart::render_svg(chart);
  const std::vector<unsigned char> png = syncsim::chart::render_png(chart);
  std::ofstream(prefix + ".png", std::ios::binary)
      .write(reinterpret_cast<const char*>(png.data()), static_cast<std::streamsize>(png.size()));
  std::cout << "wrote " << prefix << ".svg and " << prefix << ".png\n";
  return 0;
}
