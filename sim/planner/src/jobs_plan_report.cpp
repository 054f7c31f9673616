#include "syncsim/planner/jobs_plan_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "syncsim/planner/plan_report.hpp"

namespace syncsim::planner {

namespace {

std::string slowdowns_text(const JobsPlanPoint& p) {
  std::string out;
  for (const JobsPlanJob& j : p.jobs) out += fmt::format("{}{} {:.3f}", out.empty() ? "" : ", ", j.name, j.slowdown);
  return out;
}

std::string rank_text(const JobsPlan& plan, std::size_t i) {
  const JobsPlanPoint& p = plan.points[i];
  if (p.rank == 0) return "-";
  return i == 0 ? "*1" : (p.rank == 1 ? "=1" : std::to_string(p.rank));
}

}  // namespace

std::string jobs_plan_text(const JobsPlan& plan, const JobsPlanContext& c) {
  std::string out = fmt::format(
      "# syncsim plan {}: {} jobs on {} GPUs, {} points (network x placement), all jobs together at each, ranked by "
      "{}\n",
      c.scenario, c.job_names.size(), c.job_gpus, plan.points.size(),
      plan.rank_by == JobsRankBy::worst_slowdown ? "the worst job's slowdown against its time alone"
                                                 : "the total throughput of all jobs");
  out += c.currency.empty()
             ? std::string("# prices: none given (--prices FILE)\n")
             : fmt::format(
                   "# prices: USER INPUT from {} ({}), not quotes from syncsim; a point pays for every GPU of "
                   "its fabric\n",
                   c.price_file, c.currency);
  std::size_t network_width = 7;
  std::size_t placement_width = 9;
  std::size_t job_width = 9;
  for (const JobsPlanPoint& p : plan.points) {
    network_width = std::max(network_width, p.network.size());
    placement_width = std::max(placement_width, p.placement.size());
    job_width = std::max(job_width, p.worst_job.size());
  }
  const std::string cur = c.currency.empty() ? "$" : c.currency;
  const auto cost_cells = [&](const std::string& hour, const std::string& million) {
    return c.currency.empty() ? std::string() : fmt::format("  {:>10}  {:>13}", hour, million);
  };
  out += fmt::format("{:>4}  {:<{}}  {:<{}}  {:>6}  {:>8}  {:<{}}  {:>8}  {:>11}{}  {}\n", "rank", "network",
                     network_width, "placement", placement_width, "GPUs", "worst", "worst job", job_width, "mean",
                     "samples/s", cost_cells(cur + "/hour", cur + "/M samples"), "slowdown by job");
  for (std::size_t i = 0; i < plan.points.size(); ++i) {
    const JobsPlanPoint& p = plan.points[i];
    if (!p.not_run.empty()) {
      out += fmt::format("{:>4}  {:<{}}  {:<{}}  {:>6}  does not run: {}\n", rank_text(plan, i), p.network,
                         network_width, p.placement, placement_width, p.fabric_gpus, p.not_run);
      continue;
    }
    out +=
        fmt::format("{:>4}  {:<{}}  {:<{}}  {:>6}  {:>7.3f}x  {:<{}}  {:>7.3f}x  {:>11.1f}{}  {}\n", rank_text(plan, i),
                    p.network, network_width, p.placement, placement_width, p.fabric_gpus, p.worst_slowdown,
                    p.worst_job, job_width, p.mean_slowdown, p.total_samples_per_s,
                    cost_cells(p.price_per_hour ? fmt::format("{:.2f}", *p.price_per_hour) : "-",
                               p.price_per_million_samples ? fmt::format("{:.2f}", *p.price_per_million_samples) : "-"),
                    slowdowns_text(p));
  }
  if (!plan.points.empty() && plan.points.front().not_run.empty()) {
    const JobsPlanPoint& best = plan.points.front();
    out += fmt::format("chosen {} / {}:\n", best.network, best.placement);
    out += fmt::format("  {:<16} {:>6} {:>12} {:>12} {:>9} {:>11}\n", "job", "gpus", "iter (ms)", "alone (ms)",
                       "slowdown", "samples/s");
    for (const JobsPlanJob& j : best.jobs) {
      out += fmt::format("  {:<16} {:>6} {:>12.3f} {:>12.3f} {:>8.3f}x {:>11.1f}\n", j.name, j.gpus,
                         j.iteration_time_us / 1e3, j.alone_iteration_time_us / 1e3, j.slowdown, j.samples_per_s);
    }
  }
  return out;
}

std::string jobs_plan_csv(const JobsPlan& plan, const JobsPlanContext& c) {
  std::string out =
      "rank,network,placement,fabric_gpus,job_gpus,worst_slowdown,worst_job,mean_slowdown,total_samples_per_s,"
      "price_per_hour,price_per_million_samples";
  for (const std::string& name : c.job_names) {
    for (const char* column : {"iteration_time_us", "alone_iteration_time_us", "slowdown", "samples_per_s"}) {
      out += fmt::format(",{}", csv_cell(fmt::format("{}_{}", name, column)));
    }
  }
  out += ",not_run,plan_fingerprint\n";
  const auto opt = [](const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string(); };
  for (const JobsPlanPoint& p : plan.points) {
    const bool ran = p.not_run.empty();
    out += fmt::format("{},{},{},{},{}", ran ? std::to_string(p.rank) : "", csv_cell(p.network), csv_cell(p.placement),
                       p.fabric_gpus, c.job_gpus);
    out += ran ? fmt::format(",{},{},{},{},{},{}", p.worst_slowdown, csv_cell(p.worst_job), p.mean_slowdown,
                             p.total_samples_per_s, opt(p.price_per_hour), opt(p.price_per_million_samples))
               : fmt::format(",,,,,{},", opt(p.price_per_hour));
    for (std::size_t j = 0; j < c.job_names.size(); ++j) {
      if (j < p.jobs.size()) {
        const JobsPlanJob& job = p.jobs[j];
        out += fmt::format(",{},{},{},{}", job.iteration_time_us, job.alone_iteration_time_us, job.slowdown,
                           job.samples_per_s);
      } else {
        out += ",,,,";
      }
    }
    out += fmt::format(",{},{}\n", csv_cell(p.not_run), c.fingerprint);
  }
  return out;
}

chart::Chart jobs_slowdown_chart(const JobsPlan& plan) {
  chart::Chart chart;
  chart.title = "Worst job's slowdown vs total throughput";
  chart.x_label = "samples/s, all jobs";
  chart.y_label = "worst job's slowdown";
  chart.y_rule = 1;
  chart.y_rule_label = "as fast as alone";
  // One series per network, in the order of their best points.
  std::map<std::string, std::size_t> series_of;
  std::vector<std::string> order;
  for (const JobsPlanPoint& p : plan.points) {
    if (series_of.emplace(p.network, order.size()).second) order.push_back(p.network);
  }
  for (std::size_t n = 0; n < order.size(); ++n) {
    chart.series.push_back(chart::ChartSeries{.name = order[n], .lines = false, .color = static_cast<int>(n)});
  }
  for (const JobsPlanPoint& p : plan.points) {
    if (!p.not_run.empty()) continue;
    chart::ChartSeries& s = chart.series[series_of.at(p.network)];
    // Placements that give the same point share its marker and one label ("packed, rail").
    const std::pair<double, double> at{p.total_samples_per_s, p.worst_slowdown};
    const auto same = std::find(s.points.begin(), s.points.end(), at);
    if (same != s.points.end()) {
      std::string& label = s.labels[static_cast<std::size_t>(same - s.points.begin())];
      label = fmt::format("{}, {}", label, p.placement);
      continue;
    }
    s.points.push_back(at);
    s.labels.push_back(p.placement);
  }
  return chart;
}

}  // namespace syncsim::planner
