#include "syncsim/training/goodput_report.hpp"

#include <cmath>

#include "report_rounding.hpp"

namespace syncsim {
using training_detail::rounded_ratio;

namespace {

// Microseconds rounded to 3 decimals, so that the JSON stays short and stable.
double rounded_us(double seconds) {
  return std::round(seconds * 1e9) / 1e3;
}

}  // namespace

nlohmann::ordered_json goodput_json(const GoodputReport& g) {
  nlohmann::ordered_json out;
  out["ettr"] = rounded_ratio(g.ettr);
  out["ettr_p10"] = rounded_ratio(g.ettr_p10);
  out["ettr_p90"] = rounded_ratio(g.ettr_p90);
  out["goodput"] = rounded_ratio(g.goodput);
  out["interruptions"] = {{"expected", rounded_ratio(g.interruptions.expected)},
                          {"sampled_mean", rounded_ratio(g.interruptions.sampled_mean)},
                          {"p10", g.interruptions.p10},
                          {"p50", g.interruptions.p50},
                          {"p90", g.interruptions.p90}};
  nlohmann::ordered_json badput = nlohmann::ordered_json::object();
  for (const auto& [cause, share] : g.badput) badput[cause] = rounded_ratio(share);
  out["badput"] = badput;
  out["checkpoint_interval_optimal_us"] = rounded_us(g.checkpoint_interval_optimal_seconds);
  out["checkpoint_interval_young_us"] = rounded_us(g.checkpoint_interval_young_seconds);
  out["checkpoint_interval_us"] = rounded_us(g.checkpoint_interval_seconds);
  out["checkpoint"] = {{"bytes", g.checkpoint_bytes.value},
                       {"bytes_per_rank", g.checkpoint_bytes_per_rank.value},
                       {"async", g.async},
                       {"stall_us", rounded_us(g.checkpoint_stall_seconds)},
                       {"write_us", rounded_us(g.checkpoint_write_seconds)},
                       {"restore_us", rounded_us(g.restore_seconds)}};
  out["duration_us"] = rounded_us(g.duration_seconds);
  out["mtbf_us"] = rounded_us(g.mtbf_seconds);
  out["iteration_us"] = rounded_us(g.iteration_seconds);
  out["samples"] = g.samples;
  out["spares"] = g.spares;
  nlohmann::ordered_json classes = nlohmann::ordered_json::array();
  for (const FailureClassReport& c : g.classes) {
    classes.push_back({{"class", c.name},
                       {"components", c.components},
                       {"rate_per_hour", c.rate_per_hour},
                       {"expected", rounded_ratio(c.expected)},
                       {"domain_nodes", c.domain_nodes}});
  }
  out["failure_classes"] = classes;
  return out;
}

}  // namespace syncsim
