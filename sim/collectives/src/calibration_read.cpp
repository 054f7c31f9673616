// Reading a calibration file: every field checked, every error naming file:line:column and the key path.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <initializer_list>

#include "syncsim/collectives/calibration.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"

namespace syncsim {

namespace {

const char* kind_name(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Null:
      return "nothing";
    default:
      return "a scalar";
  }
}

std::string shown(const YAML::Node& node) {
  return node.IsScalar() ? fmt::format("'{}'", node.Scalar()) : kind_name(node);
}

// Latencies (launch, per step) up to a second, ten times the fit's bound (calibration_fit.cpp); efficiencies from
// 1e-6 of the link rate. Outside them a file's value would overflow the simulated clock (1e308 us was printed as
// -9223372036841.42 us) or make every transfer last for days.
constexpr double kMaxLatencyUs = 1e6;
constexpr double kMinEfficiency = 1e-6;

// One YAML node with the key path that led to it, for messages like `cal.yaml:7:18: regimes[0].launch_us: ...`.
class Field {
 public:
  Field(YAML::Node node, std::string path, const std::string& source)
      : node_(std::move(node)), path_(std::move(path)), source_(source) {}

  [[noreturn]] void fail(const std::string& message) const {
    const YAML::Mark mark = node_.Mark();
    SourceLocation where{source_};
    if (mark.line >= 0) where = SourceLocation{source_, mark.line + 1, mark.column + 1};
    throw InputError(message, where, path_);
  }

  // A mapping with exactly these keys allowed (`required` must be present).
  void expect_mapping(std::initializer_list<const char*> required, std::initializer_list<const char*> optional) const {
    if (!node_.IsMap()) fail(fmt::format("expected a mapping, got {}", shown(node_)));
    // Unknown keys first: a misspelt key is better named than reported as the missing one it meant.
    for (const auto& item : node_) {
      const std::string key = item.first.Scalar();
      bool known = false;
      for (const auto& list : {required, optional}) {
        for (const char* k : list) known = known || key == k;
      }
      if (!known) Field(item.first, join(key), source_).fail(fmt::format("unknown key '{}'", key));
    }
    for (const char* key : required) {
      if (!view()[key]) fail(fmt::format("missing key '{}'", key));
    }
  }

  // Lookups through a const node: yaml-cpp's non-const operator[] would add the key.
  Field operator[](const std::string& key) const { return Field(view()[key], join(key), source_); }
  bool has(const std::string& key) const { return static_cast<bool>(view()[key]); }

  std::vector<Field> items() const {
    if (!node_.IsSequence()) fail(fmt::format("expected a list, got {}", shown(node_)));
    std::vector<Field> out;
    for (std::size_t i = 0; i < node_.size(); ++i) {
      out.emplace_back(view()[i], fmt::format("{}[{}]", path_, i), source_);
    }
    return out;
  }

  std::string text() const {
    if (!node_.IsScalar()) fail(fmt::format("expected a string, got {}", shown(node_)));
    return node_.Scalar();
  }

  double number() const {
    double value = 0;
    if (!node_.IsScalar() || !YAML::convert<double>::decode(node_, value) || !std::isfinite(value)) {
      fail(fmt::format("expected a number, got {}", shown(node_)));
    }
    return value;
  }

  double number_at_least(double minimum, const char* unit) const {
    const double value = number();
    if (value < minimum) fail(fmt::format("expected at least {} {}, got {}", minimum, unit, value));
    return value;
  }

  // A latency in [0, kMaxLatencyUs]: beyond it the simulated clock (int64 picoseconds) is the limit, not the file.
  double latency_us() const {
    const double value = number_at_least(0, "us");
    if (value > kMaxLatencyUs) {
      fail(fmt::format("expected a latency of at most {:g} us (1 s), got {:g}", kMaxLatencyUs, value));
    }
    return value;
  }

  std::int64_t whole_number() const {
    std::int64_t value = 0;
    if (!node_.IsScalar() || !YAML::convert<std::int64_t>::decode(node_, value)) {
      fail(fmt::format("expected a whole number, got {}", shown(node_)));
    }
    return value;
  }

  bool boolean() const {
    bool value = false;
    if (!node_.IsScalar() || !YAML::convert<bool>::decode(node_, value)) {
      fail(fmt::format("expected true or false, got {}", shown(node_)));
    }
    return value;
  }

  template <class F>
  auto parsed(F&& parse) const {
    try {
      return parse(text());
    } catch (const InputError& e) {
      fail(e.message());
    }
  }

 private:
  const YAML::Node& view() const { return node_; }
  std::string join(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  YAML::Node node_;
  std::string path_;
  const std::string& source_;
};

// Format 1 allowed efficiencies up to 1.5; format 2 bounds them by the link rate.
double max_efficiency(int format_version) {
  return format_version == 1 ? kMaxEfficiencyFormat1 : kMaxEfficiency;
}

LinkCalibration read_link(const Field& field, int format_version) {
  field.expect_mapping({"step_latency_us", "efficiency"}, {"fitted"});
  LinkCalibration link;
  link.step_latency_us = field["step_latency_us"].latency_us();
  const Field efficiency = field["efficiency"];
  link.efficiency = efficiency.number();
  const double max = max_efficiency(format_version);
  if (!(link.efficiency > 0) || link.efficiency > max) {
    efficiency.fail(fmt::format("expected a fraction of the link rate in (0, {}], got {}", max, link.efficiency));
  }
  if (link.efficiency < kMinEfficiency) {
    efficiency.fail(fmt::format("expected a fraction of the link rate of at least {:g}, got {:g}", kMinEfficiency,
                                link.efficiency));
  }
  link.fitted = field.has("fitted") && field["fitted"].boolean();
  return link;
}

// Fill sizes up to 1 TiB: far above any channel ramp (calibration_fit.hpp bounds it by 2.5 MiB), below overflow.
constexpr double kMaxFillBytes = 1099511627776.0;

RegimeWindow read_window(const Field& field) {
  field.expect_mapping({"min_bytes", "max_bytes", "link_class"}, {});
  RegimeWindow window;
  window.min_size = Bytes{field["min_bytes"].whole_number()};
  window.max_size = Bytes{field["max_bytes"].whole_number()};
  if (window.min_size.value < 0 || window.max_size < window.min_size) {
    field.fail(fmt::format("expected 0 <= min_bytes <= max_bytes, got {} and {}", window.min_size.value,
                           window.max_size.value));
  }
  window.link_class = field["link_class"].parsed([](const std::string& text) { return parse_nccl_class(text); });
  return window;
}

CalibrationRegime read_regime(const Field& field, int format_version) {
  field.expect_mapping({"name", "launch_us", "links"}, {"fill_bytes", "window"});
  CalibrationRegime regime;
  regime.name = field["name"].text();
  if (regime.name.empty()) field["name"].fail("expected a regime name, got an empty string");
  regime.launch_us = field["launch_us"].latency_us();
  if (field.has("fill_bytes")) {
    const Field fill = field["fill_bytes"];
    regime.fill_bytes = fill.number_at_least(0, "bytes");
    if (regime.fill_bytes > kMaxFillBytes)
      fill.fail(fmt::format("expected at most 1 TiB, got {:g}", regime.fill_bytes));
  }
  if (field.has("window")) regime.window = read_window(field["window"]);
  const Field links = field["links"];
  links.expect_mapping({"nvlink", "pci", "net"}, {});
  for (const LinkKind c : kLinkKinds) {
    regime.links[static_cast<std::size_t>(c)] = read_link(links[std::string(nccl_class_name(c))], format_version);
  }
  return regime;
}

BoundHit read_bound_hit(const Field& field) {
  field.expect_mapping({"parameter", "value", "bound", "side"}, {});
  BoundHit hit;
  hit.parameter = field["parameter"].text();
  hit.value = field["value"].number();
  hit.bound = field["bound"].number();
  const std::string side = field["side"].text();
  if (side != "upper" && side != "lower") field["side"].fail(fmt::format("expected upper or lower, got '{}'", side));
  hit.upper = side == "upper";
  return hit;
}

// A format 1 file's efficiencies above 1 are what format 2 calls a parameter beyond its bound.
void flag_format1_efficiencies(Calibration& calibration) {
  for (const CalibrationRegime& regime : calibration.regimes) {
    for (const LinkKind c : kLinkKinds) {
      const LinkCalibration& link = regime.links[static_cast<std::size_t>(c)];
      if (link.fitted && link.efficiency > kMaxEfficiency) {
        calibration.on_bound.push_back(
            {fmt::format("{}.{}.efficiency", regime.name, nccl_class_name(c)), link.efficiency, kMaxEfficiency, true});
      }
    }
  }
}

std::optional<double> optional_error(const Field& field, const char* key) {
  if (!field.has(key)) return std::nullopt;
  return field[key].number_at_least(0, "(a fraction)");
}

CalibrationMeasurement read_measurement(const Field& field) {
  field.expect_mapping(
      {"file", "collective", "ranks", "hosts", "topology", "sizes_bytes", "measured_us", "predicted_us", "fit_error"},
      {});
  CalibrationMeasurement m;
  m.file = field["file"].text();
  m.collective = field["collective"].parsed([](const std::string& text) { return parse_collective_op(text); });
  m.ranks = static_cast<int>(field["ranks"].whole_number());
  if (m.ranks < 2) field["ranks"].fail(fmt::format("expected at least 2 ranks, got {}", m.ranks));
  m.hosts = static_cast<int>(field["hosts"].whole_number());
  if (m.hosts < 1 || m.hosts > m.ranks) field["hosts"].fail(fmt::format("expected 1 to {}, got {}", m.ranks, m.hosts));
  m.topology = field["topology"].text();
  for (const Field& size : field["sizes_bytes"].items()) {
    m.sizes_bytes.push_back(size.whole_number());
    if (m.sizes_bytes.back() <= 0) size.fail("expected a size above 0 bytes");
  }
  for (const Field& time : field["measured_us"].items()) {
    m.measured_us.push_back(time.number());
    if (!(m.measured_us.back() > 0)) time.fail("expected a time above 0 us");
  }
  for (const Field& time : field["predicted_us"].items()) m.predicted_us.push_back(time.number_at_least(0, "us"));
  for (const char* key : {"measured_us", "predicted_us"}) {
    const std::size_t n = std::string(key) == "measured_us" ? m.measured_us.size() : m.predicted_us.size();
    if (n != m.sizes_bytes.size()) {
      field[key].fail(fmt::format("expected {} values, one per size in sizes_bytes, got {}", m.sizes_bytes.size(), n));
    }
  }
  const Field error = field["fit_error"];
  error.expect_mapping({"geomean_abs_error", "max_abs_error"}, {"geomean_abs_error_1mib", "max_abs_error_1mib"});
  m.fit_error.points = m.sizes_bytes.size();
  m.fit_error.geomean_abs_error = error["geomean_abs_error"].number_at_least(0, "(a fraction)");
  m.fit_error.max_abs_error = error["max_abs_error"].number_at_least(0, "(a fraction)");
  m.fit_error.geomean_abs_error_1mib = optional_error(error, "geomean_abs_error_1mib");
  m.fit_error.max_abs_error_1mib = optional_error(error, "max_abs_error_1mib");
  for (const std::int64_t size : m.sizes_bytes) m.fit_error.points_1mib += size >= kBandwidthBoundBytes ? 1 : 0;
  return m;
}

DomainLinkClass read_domain_link(const Field& field) {
  field.expect_mapping({"class", "rate_gb_per_s", "count"}, {});
  DomainLinkClass link;
  link.kind = field["class"].parsed([](const std::string& text) { return parse_nccl_class(text); });
  const Field rate = field["rate_gb_per_s"];
  link.rate_gb_per_s = rate.number();
  if (!(link.rate_gb_per_s > 0)) rate.fail(fmt::format("expected a rate above 0 GB/s, got {}", link.rate_gb_per_s));
  link.count = field["count"].whole_number();
  if (link.count < 1) field["count"].fail(fmt::format("expected at least 1 link, got {}", link.count));
  return link;
}

DomainLog read_domain_log(const Field& field) {
  field.expect_mapping({"file"}, {"nccl_version", "env"});
  DomainLog log;
  log.file = field["file"].text();
  if (field.has("nccl_version")) log.nccl_version = field["nccl_version"].text();
  if (field.has("env")) {
    for (const Field& setting : field["env"].items()) log.env.push_back(setting.text());
  }
  return log;
}

CalibrationDomain read_domain(const Field& field) {
  field.expect_mapping({"gpu", "nodes", "ranks", "links", "sizes_bytes"}, {"device", "logs"});
  CalibrationDomain d;
  d.gpu = field["gpu"].text();
  if (field.has("device")) d.device = field["device"].text();
  d.nodes = field["nodes"].whole_number();
  if (d.nodes < 1) field["nodes"].fail(fmt::format("expected at least 1 node, got {}", d.nodes));
  d.ranks = field["ranks"].whole_number();
  if (d.ranks < 2) field["ranks"].fail(fmt::format("expected at least 2 ranks, got {}", d.ranks));
  for (const Field& link : field["links"].items()) {
    d.links.push_back(read_domain_link(link));
    for (std::size_t i = 0; i + 1 < d.links.size(); ++i) {
      if (d.links[i].kind == d.links.back().kind) link["class"].fail("this link class appears twice");
    }
  }
  const std::vector<Field> sizes = field["sizes_bytes"].items();
  if (sizes.size() != 2)
    field["sizes_bytes"].fail(fmt::format("expected [smallest, largest], got {} values", sizes.size()));
  d.min_size_bytes = sizes[0].whole_number();
  d.max_size_bytes = sizes[1].whole_number();
  if (d.min_size_bytes < 0 || d.max_size_bytes < d.min_size_bytes) {
    field["sizes_bytes"].fail(
        fmt::format("expected 0 <= smallest <= largest, got [{}, {}]", d.min_size_bytes, d.max_size_bytes));
  }
  if (field.has("logs")) {
    for (const Field& log : field["logs"].items()) d.logs.push_back(read_domain_log(log));
  }
  return d;
}

Calibration read_root(const Field& root) {
  root.expect_mapping({"format_version", "topology", "regimes", "measurements"},
                      {"placement", "algorithm", "on_bound", "domain"});
  Calibration calibration;
  calibration.format_version = static_cast<int>(root["format_version"].whole_number());
  if (calibration.format_version != kCalibrationFormatVersion && calibration.format_version != 1) {
    root["format_version"].fail(fmt::format("unsupported format version {} (this syncsim reads versions 1 and {})",
                                            calibration.format_version, kCalibrationFormatVersion));
  }
  calibration.topology = root["topology"].text();
  if (calibration.topology.empty()) root["topology"].fail("expected a topology spec, got an empty string");
  if (root.has("placement")) {
    calibration.placement = root["placement"].parsed([](const std::string& text) { return parse_placement(text); });
  }
  if (root.has("algorithm")) {
    calibration.algorithm = root["algorithm"].parsed([](const std::string& text) { return parse_algorithm(text); });
  }
  for (const Field& regime : root["regimes"].items()) {
    calibration.regimes.push_back(read_regime(regime, calibration.format_version));
    for (std::size_t r = 0; r + 1 < calibration.regimes.size(); ++r) {
      if (calibration.regimes[r].name == calibration.regimes.back().name) {
        regime["name"].fail(fmt::format("regime '{}' appears twice", calibration.regimes.back().name));
      }
    }
  }
  if (calibration.regimes.empty()) root["regimes"].fail("expected at least one regime");
  if (root.has("on_bound")) {
    for (const Field& hit : root["on_bound"].items()) calibration.on_bound.push_back(read_bound_hit(hit));
  }
  if (calibration.format_version == 1) flag_format1_efficiencies(calibration);
  for (const Field& measurement : root["measurements"].items()) {
    calibration.measurements.push_back(read_measurement(measurement));
  }
  if (root.has("domain")) calibration.domain = read_domain(root["domain"]);
  return calibration;
}

}  // namespace

Calibration parse_calibration(const std::string& text, const std::string& source) {
  YAML::Node document;
  try {
    document = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    SourceLocation where{source};
    if (e.mark.line >= 0) where = SourceLocation{source, e.mark.line + 1, e.mark.column + 1};
    throw InputError(fmt::format("not valid YAML: {}", e.msg), where);
  }
  if (!document.IsDefined() || document.IsNull()) {
    throw InputError("empty calibration file (expected format_version, topology, regimes, measurements)",
                     SourceLocation{source});
  }
  return read_root(Field(document, "", source));
}

Calibration read_calibration(const std::string& path) {
  return parse_calibration(read_input_file(path, "calibration file"), path);
}

}  // namespace syncsim
