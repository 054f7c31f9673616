#include "syncsim/training/goodput_report.hpp"

#include <cmath>

namespace syncsim {

namespace {

// Rounded so that the JSON stays short and stable: ratios to 9 decimals, microseconds to 3.
double ratio(double x) {
  return std::round(x * 1e9) / 1e9;
}

double us(double seconds) {
  return std::round(seconds * 1e9) / 1e3;
}

}  // namespace

nlohmann::ordered_json goodput_json(const GoodputReport& g) {
  nlohmann::ordered_json out;
  out["ettr"] = ratio(g.ettr);
  out["ettr_p10"] = ratio(g.ettr_p10);
  out["ettr_p90"] = ratio(g.ettr_p90);
  out["goodput"] = ratio(g.goodput);
  out["interruptions"] = {{"expected", ratio(g.interruptions.expected)},
                          {"sampled_mean", ratio(g.interruptions.sampled_mean)},
                          {"p10", g.interruptions.p10},
                          {"p50", g.interruptions.p50},
                          {"p90", g.interruptions.p90}};
  nlohmann::ordered_json badput = nlohmann::ordered_json::object();
  for (const auto& [cause, share] : g.badput) badput[cause] = ratio(share);
  out["badput"] = badput;
  out["checkpoint_interval_optimal_us"] = us(g.checkpoint_interval_optimal_seconds);
  out["checkpoint_interval_young_us"] = us(g.checkpoint_interval_young_seconds);
  out["checkpoint_interval_us"] = us(g.checkpoint_interval_seconds);
  out["checkpoint"] = {{"bytes", g.checkpoint_bytes.value},
                       {"bytes_per_rank", g.checkpoint_bytes_per_rank.value},
                       {"async", g.async},
                       {"stall_us", us(g.checkpoint_stall_seconds)},
                       {"write_us", us(g.checkpoint_write_seconds)},
                       {"restore_us", us(g.restore_seconds)}};
  out["duration_us"] = us(g.duration_seconds);
  out["mtbf_us"] = us(g.mtbf_seconds);
  out["iteration_us"] = us(g.iteration_seconds);
  out["samples"] = g.samples;
  out["spares"] = g.spares;
  nlohmann::ordered_json classes = nlohmann::ordered_json::array();
  for (const FailureClassReport& c : g.classes) {
    classes.push_back({{"class", c.name},
                       {"components", c.components},
                       {"rate_per_hour", c.rate_per_hour},
                       {"expected", ratio(c.expected)},
                       {"domain_nodes", c.domain_nodes}});
  }
  out["failure_classes"] = classes;
  return out;
}

}  // namespace syncsim
