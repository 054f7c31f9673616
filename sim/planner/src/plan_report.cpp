#include "syncsim/planner/plan_report.hpp"

#include "syncsim/training/training_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "syncsim/planner/plan_failures.hpp"

namespace syncsim::planner {

namespace {

std::string hours_text(double seconds) {
  const double hours = seconds / 3600;
  if (hours >= 48) return fmt::format("{:.1f} d", hours / 24);
  if (hours >= 1) return fmt::format("{:.1f} h", hours);
  return fmt::format("{:.1f} min", seconds / 60);
}

std::string optional_number(const std::optional<double>& v, const char* format) {
  return v ? fmt::format(fmt::runtime(format), *v) : "-";
}

chart::Chart make_chart(std::string title, std::string x_label, std::string y_label) {
  chart::Chart chart;
  chart.title = std::move(title);
  chart.x_label = std::move(x_label);
  chart.y_label = std::move(y_label);
  return chart;
}

// The ideal line's words: the efficiencies are against each configuration's smallest count that fits
// (plan_analysis.hpp).
constexpr const char* kIdealLabel = "ideal: linear from the smallest count";

}  // namespace

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string bottleneck_text(const PlanPoint& p) {
  return fmt::format("{:.0f}% {}", 100 * p.bottleneck_share, p.bottleneck);
}

std::string plan_text(const Plan& plan, const PlanContext& c) {
  std::string out;
  // With --checkpoint-intervals or --spares each point has a row per pair: the table shows its best, plan.csv all.
  const auto alternatives = static_cast<std::size_t>(
      std::count_if(plan.points.begin(), plan.points.end(), [](const PlanPoint& p) { return p.alternative; }));
  const bool pairs =
      std::any_of(plan.points.begin(), plan.points.end(), [](const PlanPoint& p) { return p.spares.has_value(); });
  out += fmt::format(
      "# syncsim plan {}: {} points{}, efficiency threshold {:.2f}\n", c.scenario, plan.points.size() - alternatives,
      pairs ? fmt::format(" x {} (interval, spares) pairs",
                          plan.points.size() / std::max<std::size_t>(1, plan.points.size() - alternatives))
            : std::string(),
      c.goal.min_efficiency);
  if (!c.currency.empty()) {
    out += fmt::format("# prices: USER INPUT from {} ({}), not quotes from syncsim\n", c.price_file, c.currency);
  } else {
    out += c.goal.target_loss ? "# prices: none given (--prices FILE); ranked by time to the target loss\n"
                              : "# prices: none given (--prices FILE); ranked by throughput\n";
  }
  if (c.goal.target_samples_per_s) {
    out += fmt::format("# target: {} samples/s\n", target_rate_text(*c.goal.target_samples_per_s));
  }
  if (c.goal.target_loss) {
    out += fmt::format("# objective: time to held-out loss {} in the convergence proxy (docs/convergence.md)\n",
                       *c.goal.target_loss);
  }
  if (c.seeds > 1) {
    out += fmt::format(
        "# seeds: {} runs per point (the scenario's seed S, then S+1 ...); each point is its {} run by throughput, "
        "p10-p90 beside it\n",
        c.seeds, c.risk);
  }
  for (const std::string& note : c.notes) out += "# " + note + "\n";
  const std::string cur = c.currency.empty() ? "$" : c.currency;
  std::size_t config_width = 13;
  for (const PlanPoint& p : plan.points) config_width = std::max(config_width, configuration_name(p).size());
  std::size_t layout_width = 6;
  for (const PlanPoint& p : plan.points) layout_width = std::max(layout_width, p.layout.size());
  const auto layout_cell = [&](const std::string& text) {
    return c.layouts ? fmt::format("  {:<{}}", text, layout_width) : std::string();
  };
  // With a sample count, what the whole run takes: GPU-hours and MWh (plan_energy.hpp), with prices their cost.
  const bool totals = c.goal.samples.has_value();
  const bool energy_priced =
      std::any_of(plan.points.begin(), plan.points.end(), [](const PlanPoint& p) { return p.energy_cost.has_value(); });
  const auto total_cells = [&](const std::string& hours, const std::string& cost, const std::string& mwh,
                               const std::string& energy_cost) {
    if (!totals) return std::string();
    return fmt::format("  {:>10}  {:>14}  {:>9}", hours, cost, mwh) +
           (energy_priced ? fmt::format("  {:>14}", energy_cost) : std::string());
  };
  // With failures counted, ETTR beside samples/s (plan_failures.hpp): the efficiencies and times count it.
  const bool failures = counts_failures(plan);
  const auto ettr_cell = [&](const std::string& text) {
    return failures ? fmt::format("  {:>6}", text) : std::string();
  };
  const auto pair_cells = [&](const std::string& interval, const std::string& spares) {
    return pairs ? fmt::format("  {:>16}  {:>6}", interval, spares) : std::string();
  };
  const bool spread = c.seeds > 1;
  const auto spread_cell = [&](const PlanPoint& p) {
    if (!spread) return std::string();
    return fmt::format("  {:>17}", p.spread ? fmt::format("{:.1f}-{:.1f}", p.spread->p10, p.spread->p90) : "-");
  };
  out +=
      fmt::format("{:>4}  {:<{}}  {:>5}{}  {:>11}{}{}{}  {:>6}  {:>8}  {:>10}  {:>12}  {:>13}{}  {}\n", "rank",
                  "configuration", config_width, "GPUs", layout_cell("layout"), "samples/s",
                  spread ? fmt::format("  {:>17}", "p10-p90") : std::string(), ettr_cell("ETTR"),
                  pair_cells("checkpoint", "spares"), "effic.", "marginal", cur + "/hour", cur + "/M samples",
                  "time-to-train", total_cells("GPU-hours", cur + " to train", "MWh", cur + " energy"), "bottleneck");
  for (std::size_t i = 0; i < plan.points.size(); ++i) {
    const PlanPoint& p = plan.points[i];
    if (p.alternative) continue;  // after every point's best (analyze_plan): in plan.csv
    const bool best = plan.recommended && *plan.recommended == i;
    const std::string interval = span_text(p.checkpoint_interval_s.value_or(0));
    out += fmt::format(
        "{:>4}  {:<{}}  {:>5}{}  {:>11.1f}{}{}{}  {:>6.3f}  {:>8.3f}  {:>10}  {:>12}  {:>13}{}  {}{}\n",
        best ? "*1" : std::to_string(i + 1), configuration_name(p), config_width, p.gpus, layout_cell(p.layout),
        p.samples_per_s, spread_cell(p), ettr_cell(p.ettr ? fmt::format("{:.1f}%", 100 * *p.ettr) : "-"),
        pair_cells(p.checkpoint_choice == "optimal" ? "optimal " + interval : interval,
                   p.spares ? std::to_string(*p.spares) : "-"),
        p.scaling_efficiency, p.marginal_efficiency, optional_number(p.price_per_hour, "{:.2f}"),
        optional_number(p.price_per_million_samples, "{:.2f}"),
        p.time_to_train_s                            ? hours_text(*p.time_to_train_s)
        : p.kept_share && c.goal.samples.has_value() ? "never"
                                                     : "-",
        total_cells(optional_number(p.gpu_hours, "{:.0f}"), optional_number(p.cost_to_train, "{:.0f}"),
                    optional_number(p.energy_mwh, p.energy_mwh && *p.energy_mwh < 10 ? "{:.3f}" : "{:.1f}"),
                    optional_number(p.energy_cost, "{:.0f}")),
        bottleneck_text(p),
        !p.fits ? fmt::format("  (does not fit: {:.2f} GiB of {:.2f} GiB per GPU)", p.memory_bytes / (1LL << 30),
                              p.memory_capacity_bytes / (1LL << 30))
        : p.meets_target     ? ""
        : c.goal.target_loss ? ""
                             : "  (below target)");
    if (c.goal.target_loss) {
      out += p.time_to_target_s
                 ? fmt::format("{:>6}  reaches loss {} at {:.3f} s{}\n", "", *c.goal.target_loss, *p.time_to_target_s,
                               p.cost_to_target ? fmt::format(" ({:.2f} {})", *p.cost_to_target, cur) : "")
                 : fmt::format("{:>6}  does not reach loss {} (best {:.4f})\n", "", *c.goal.target_loss, p.best_loss);
    }
  }
  if (alternatives > 0) {
    out += fmt::format("# the other {} pairs (interval, spares) of these points: plan.csv, rows {} to {}\n",
                       alternatives, plan.points.size() - alternatives + 1, plan.points.size());
  }
  for (const PlanConfiguration& cfg : plan.configurations) {
    const std::string name = cfg.gpu + " / " + cfg.network;
    const bool fits =
        std::any_of(cfg.points.begin(), cfg.points.end(), [&](std::size_t i) { return plan.points[i].fits; });
    if (!fits) {
      out += fmt::format("knee {}: none — no size fits in GPU memory\n", name);
      continue;
    }
    if (!cfg.knee) {
      const PlanPoint& first = plan.points[cfg.points.front()];
      out += fmt::format("knee {}: none — already {:.3f} efficiency at {} GPUs: {}\n", name, first.scaling_efficiency,
                         first.gpus, first.bottleneck_summary);
      continue;
    }
    const PlanPoint& knee = plan.points[*cfg.knee];
    if (!cfg.first_below) {
      out += fmt::format("knee {}: none up to {} GPUs — marginal efficiency stays >= {:.2f}\n", name, knee.gpus,
                         c.goal.min_efficiency);
      continue;
    }
    const PlanPoint& below = plan.points[*cfg.first_below];
    if (cfg.failures_cause) {
      out += fmt::format("knee {}: {} GPUs — {}\n", name, knee.gpus, failures_knee_text(knee, below));
      continue;
    }
    out += fmt::format(
        "knee {}: {} GPUs — going to {} GPUs the added GPUs return {:.3f} of their throughput; at {} GPUs {}\n", name,
        knee.gpus, below.gpus, below.marginal_efficiency, below.gpus, below.bottleneck_summary);
  }
  return out;
}

std::string plan_csv(const Plan& plan, const PlanGoal& goal) {
  std::string out =
      "rank,gpu,network,gpus,samples_per_s,scaling_efficiency,marginal_efficiency,price_per_hour,"
      "price_per_million_samples,time_to_train_s,meets_target,pareto,bottleneck,bottleneck_share,fits,memory_bytes,"
      "memory_capacity_bytes,gpu_hours,cost_to_train,seeds,samples_per_s_p10,samples_per_s_p50,samples_per_s_p90,"
      "layout,mfu,tokens_per_s_per_gpu,gpu_power_watts,energy_mwh,energy_cost";
  const std::vector<std::pair<std::string, double>> names = time_shares(TrainingReport{});  // the fixed columns
  for (const auto& [name, share] : names) out += "," + name + "_share";
  out += goal.target_loss ? ",time_to_target_s,cost_to_target,best_loss" : "";
  // With failures counted (plan_failures.hpp), at the end: columns a plan without them does not have.
  const bool failures = counts_failures(plan);
  out += failures ? ",ettr,badput_hours,checkpoint_interval_s,effective_samples_per_s" : "";
  // With --checkpoint-intervals or --spares (plan_dimensions.hpp): each row's pair; `pair` names it in words, so a
  // reader grouping rows by their text columns (syncsim-gui) draws one line per pair.
  const bool pairs =
      std::any_of(plan.points.begin(), plan.points.end(), [](const PlanPoint& p) { return p.spares.has_value(); });
  out += pairs ? ",spares,pair\n" : "\n";
  const auto opt = [](const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string(); };
  for (std::size_t i = 0; i < plan.points.size(); ++i) {
    const PlanPoint& p = plan.points[i];
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", i + 1, csv_cell(p.gpu),
                       csv_cell(p.network), p.gpus, p.samples_per_s, p.scaling_efficiency, p.marginal_efficiency,
                       opt(p.price_per_hour), opt(p.price_per_million_samples), opt(p.time_to_train_s), p.meets_target,
                       p.pareto, csv_cell(p.bottleneck), p.bottleneck_share, p.fits, p.memory_bytes,
                       p.memory_capacity_bytes, opt(p.gpu_hours), opt(p.cost_to_train));
    out += p.spread ? fmt::format(",{},{},{},{}", p.spread->seeds, p.spread->p10, p.spread->p50, p.spread->p90)
                    : std::string(",1,,,");
    out += fmt::format(",{},{},{},{},{},{}", csv_cell(p.layout), p.model_flops_utilization, opt(p.tokens_per_s_per_gpu),
                       opt(p.gpu_power_watts), opt(p.energy_mwh), opt(p.energy_cost));
    // Every point has every share (time_shares' fixed names); one left out (a hand-made point) is an empty cell.
    for (const auto& named : names) {
      // By the pair, not a structured binding: clang 14 (the fuzz build's) cannot capture a binding in a lambda.
      const auto it = std::find_if(p.time_shares.begin(), p.time_shares.end(),
                                   [&](const auto& s) { return s.first == named.first; });
      out += it == p.time_shares.end() ? std::string(",") : fmt::format(",{}", it->second);
    }
    if (goal.target_loss) out += fmt::format(",{},{},{}", opt(p.time_to_target_s), opt(p.cost_to_target), p.best_loss);
    out += failures ? fmt::format(",{},{},{},{}", opt(p.ettr), opt(p.badput_hours), opt(p.checkpoint_interval_s),
                                  effective_samples_per_s(p))
                    : "";
    out += pairs ? fmt::format(",{},{}\n", p.spares.value_or(0), csv_cell(pair_label(p))) : "\n";
  }
  return out;
}

std::vector<NamedChart> plan_charts(const Plan& plan, const PlanContext& c) {
  chart::Chart throughput = make_chart("Throughput vs GPUs", "GPUs", "samples/s");
  chart::Chart efficiency = make_chart("Scaling efficiency vs GPUs", "GPUs", "scaling efficiency");
  // Throughput on linear axes, beside each configuration's ideal (linear from its smallest count), so that linear
  // scaling is a straight line and the gap to it is the loss; efficiency, a ratio, on a linear y over doubling GPU
  // counts.
  efficiency.log_x = true;
  throughput.reference_label = kIdealLabel;
  if (counts_failures(plan)) throughput.y_label = "samples/s over the wall time (failures counted)";
  efficiency.y_rule = c.goal.min_efficiency;
  efficiency.y_rule_label = fmt::format("threshold {:.2f}", c.goal.min_efficiency);
  if (c.goal.target_samples_per_s) {
    throughput.y_rule = *c.goal.target_samples_per_s;
    throughput.y_rule_label = "target";
  }
  const bool priced = !c.currency.empty();
  const bool absolute = c.goal.samples.has_value();
  chart::Chart cost = make_chart(absolute ? "Cost vs time-to-train" : "Cost vs time per million samples",
                                 absolute ? "time-to-train (hours)" : "hours per million samples",
                                 absolute ? "total cost (" + c.currency + ")" : c.currency + " per million samples");
  if (absolute && c.goal.deadline_s) {
    cost.x_rule = *c.goal.deadline_s / 3600;
    cost.x_rule_label = "deadline " + hours_text(*c.goal.deadline_s);
  }
  std::vector<std::pair<double, double>> front;
  std::vector<chart::ChartSeries> ideals;
  for (std::size_t n = 0; n < plan.configurations.size(); ++n) {
    const PlanConfiguration& cfg = plan.configurations[n];
    const int color = static_cast<int>(n);
    chart::ChartSeries t{.name = cfg.gpu + " / " + cfg.network, .color = color};
    chart::ChartSeries ideal{.name = "", .dashed = true, .color = color};
    chart::ChartSeries e{.name = t.name, .color = color};
    chart::ChartSeries k{.name = t.name, .lines = false, .color = color};
    for (std::size_t i : cfg.points) {
      const PlanPoint& p = plan.points[i];
      const auto gpus = static_cast<double>(p.gpus);
      const double delivered = effective_samples_per_s(p);  // samples/s as it is without failures counted
      t.points.emplace_back(gpus, delivered);
      if (n == 0) t.labels.push_back(std::to_string(p.gpus));  // the configurations share the grid's counts
      // The ideal is what the efficiency in use measures against (throughput / efficiency), so the gap to it is
      // the efficiency the table prints: GPUs x the per-GPU throughput of the smallest count that fits
      // (plan_analysis.hpp).
      if (p.scaling_efficiency > 0) ideal.points.emplace_back(gpus, delivered / p.scaling_efficiency);
      e.points.emplace_back(gpus, p.scaling_efficiency);
      if (priced && p.price_per_million_samples && delivered > 0) {
        const double samples = absolute ? *c.goal.samples : 1e6;
        const double hours = samples / delivered / 3600;
        k.points.emplace_back(hours, *p.price_per_million_samples * samples / 1e6);
        k.labels.push_back(fmt::format("{} GPUs", p.gpus));
        if (p.pareto) front.push_back(k.points.back());
      }
    }
    throughput.series.push_back(std::move(t));
    ideals.push_back(std::move(ideal));
    efficiency.series.push_back(std::move(e));
    cost.series.push_back(std::move(k));
  }
  for (chart::ChartSeries& ideal : ideals) throughput.series.push_back(std::move(ideal));
  std::sort(front.begin(), front.end());
  cost.front = std::move(front);
  cost.front_label = "Pareto front";
  std::vector<NamedChart> out{{"throughput", std::move(throughput)}, {"efficiency", std::move(efficiency)}};
  if (priced) out.push_back({"cost", std::move(cost)});
  if (c.goal.target_loss) {
    chart::Chart reach = make_chart(fmt::format("Time to held-out loss {} vs GPUs", *c.goal.target_loss), "GPUs",
                                    "simulated seconds to the target");
    reach.log_x = true;
    reach.missing_label = "did not reach it";
    for (std::size_t n = 0; n < plan.configurations.size(); ++n) {
      const PlanConfiguration& cfg = plan.configurations[n];
      chart::ChartSeries series{.name = cfg.gpu + " / " + cfg.network};
      for (std::size_t i : cfg.points) {
        const PlanPoint& p = plan.points[i];
        if (p.time_to_target_s) {
          series.points.emplace_back(static_cast<double>(p.gpus), *p.time_to_target_s);
        } else {
          reach.missing.push_back({static_cast<double>(p.gpus), n, fmt::format("{}: not reached", p.gpus)});
        }
      }
      reach.series.push_back(std::move(series));
    }
    out.push_back({"time_to_target", std::move(reach)});
  }
  return out;
}

}  // namespace syncsim::planner
