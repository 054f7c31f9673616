#include "syncsim/planner/convergence_chart.hpp"

#include <fmt/format.h>

namespace syncsim::planner {

chart::Chart loss_chart(const std::vector<std::pair<std::string, const ConvergenceReport*>>& runs) {
  chart::Chart chart;
  chart.title = "Held-out loss of the convergence proxy";
  chart.x_label = "simulated time (s)";
  chart.y_label = "loss (nats)";
  for (const auto& [name, report] : runs) {
    chart::ChartSeries series{name, {}, true};
    for (const ConvergenceSample& p : report->curve) series.points.emplace_back(p.at.seconds(), p.loss);
    chart.series.push_back(std::move(series));
  }
  if (!runs.empty() && runs.front().second->target_loss) {
    chart.y_rule = *runs.front().second->target_loss;
    chart.y_rule_label = fmt::format("target {}", *chart.y_rule);
  }
  return chart;
}

chart::Chart staleness_chart(const StalenessReport& staleness) {
  chart::Chart chart;
  chart.title = "Staleness of the applied updates";
  chart.x_label = "staleness (updates in between)";
  chart.y_label = "updates";
  chart::ChartSeries series{"updates", {}, true};
  for (std::size_t s = 0; s < staleness.histogram.size(); ++s) {
    series.points.emplace_back(static_cast<double>(s), static_cast<double>(staleness.histogram[s]));
  }
  chart.series.push_back(std::move(series));
  return chart;
}

}  // namespace syncsim::planner
