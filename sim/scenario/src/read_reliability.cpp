// reliability: failures at rates over a long job (reliability_config.hpp), and the goodput assessment's checkpoint
// keys' checks across sections.
#include <fmt/format.h>

#include <cctype>

#include "field_reader.hpp"
#include "sections.hpp"

namespace syncsim::scenario_detail {

namespace {

constexpr std::int64_t kMaxFailureSamples = 100'000;
// A rate above one failure per component-minute is a typo, not a failure model.
constexpr double kMaxRatePerHour = 60;

// `1/30000h`, `2e-5/h`, `0`: failures per component-hour.
double read_rate(const ConfigNode& node, const std::string& path) {
  const std::string text = read_text(node, path, "a rate like 1/30000h");
  constexpr std::string_view kExpected = "a rate per component-hour like 1/30000h, 2e-5/h or 0";
  const auto slash = text.find('/');
  try {
    if (slash == std::string::npos) {
      if (parse_number(text) == 0) return 0;
      fail(node, path, fmt::format("expected {}, got '{}' (a number without its time)", kExpected, text));
    }
    const double count = parse_number(text.substr(0, slash));
    std::string per = text.substr(slash + 1);
    if (!per.empty() && std::isalpha(static_cast<unsigned char>(per.front()))) per = "1" + per;
    const double seconds = parse_seconds(per);
    if (!(seconds > 0) || count < 0) throw InputError("");
    const double rate = count / (seconds / 3600);
    if (rate > kMaxRatePerHour) {
      fail(node, path, fmt::format("expected at most {} failures per component-hour, got '{}'", kMaxRatePerHour, text));
    }
    return rate;
  } catch (const InputError& e) {
    if (e.where()) throw;
    fail(node, path, fmt::format("expected {}, got '{}'", kExpected, text));
  }
}

FailureRates read_rates(const ConfigNode& node, const std::string& path) {
  const MapReader reader(node, path, {"gpu", "hbm", "nic", "switch", "host", "software"});
  FailureRates rates;
  const auto rate = [&](std::string_view key, double& out) {
    if (const ConfigNode* value = reader.get(key)) out = read_rate(*value, reader.path(key));
  };
  rate("gpu", rates.gpu);
  rate("hbm", rates.hbm);
  rate("nic", rates.nic);
  rate("switch", rates.network_switch);
  rate("host", rates.host);
  rate("software", rates.software);
  return rates;
}

double read_span(const ConfigNode& node, const std::string& path) {
  const std::string text = read_text(node, path, "a time like 54d");
  double seconds = 0;
  try {
    seconds = parse_seconds(text);
  } catch (const InputError& e) {
    fail(node, path, e.message());
  }
  if (!(seconds > 0)) fail(node, path, fmt::format("expected a duration above zero like 54d, got '{}'", text));
  return seconds;
}

}  // namespace

ReliabilityConfig read_reliability(const ConfigNode& node) {
  const MapReader reader(node, "reliability",
                         {"failures", "duration", "spares", "swap_time", "repair_time", "samples"});
  ReliabilityConfig r;
  r.where = node.where;
  const ConfigNode& failures = reader.require("failures", "default, or rates like {gpu: 1/30000h}");
  if (failures.kind == ConfigNode::Kind::scalar) {
    if (failures.text != "default") {
      fail(failures, reader.path("failures"),
           fmt::format("expected default or a map of rates like {{gpu: 1/30000h}}, got '{}'", failures.text));
    }
  } else {
    r.default_table = false;
    r.rates = read_rates(failures, reader.path("failures"));
  }
  r.duration_seconds =
      read_span(reader.require("duration", "the job's wall-clock length, e.g. 54d"), reader.path("duration"));
  if (const ConfigNode* spares = reader.get("spares")) {
    // A pool past 2^20 nodes is no cluster's; beyond it spares x GPUs per node overflowed (found by fuzzing).
    constexpr std::int64_t kMaxSpareNodes = std::int64_t{1} << 20;
    r.spares = read_count(*spares, reader.path("spares"), 0);
    if (r.spares > kMaxSpareNodes) {
      fail(*spares, reader.path("spares"),
           fmt::format("expected at most {} spare nodes, got {}", kMaxSpareNodes, r.spares));
    }
  }
  if (const ConfigNode* swap = reader.get("swap_time")) r.swap_time = read_duration(*swap, reader.path("swap_time"));
  if (const ConfigNode* repair = reader.get("repair_time")) {
    r.repair_time = read_duration(*repair, reader.path("repair_time"));
  }
  if (const ConfigNode* samples = reader.get("samples")) {
    r.samples = read_count(*samples, reader.path("samples"), 1);
    if (r.samples > kMaxFailureSamples) {
      fail(*samples, reader.path("samples"), fmt::format("expected at most {} samples", kMaxFailureSamples));
    }
  }
  return r;
}

}  // namespace syncsim::scenario_detail
