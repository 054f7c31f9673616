#include "syncsim/topology/topology_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "generators/generators.hpp"

namespace syncsim {

namespace topology_detail {

namespace {
constexpr std::array<std::string_view, 4> kRingKeys{"n", "bw", "lat", "link_kind"};
constexpr std::array<std::string_view, 4> kMeshKeys{"n", "bw", "lat", "link_kind"};
constexpr std::array<std::string_view, 5> kSwitchKeys{"n", "bw", "lat", "switch_lat", "link_kind"};
constexpr std::array<std::string_view, 4> kTorusKeys{"dims", "bw", "lat", "link_kind"};
constexpr std::array<std::string_view, 8> kFatTreeKeys{"n",   "radix",   "tiers",      "bw",
                                                       "lat", "oversub", "switch_lat", "sharp"};
constexpr std::array<std::string_view, 14> kDgxKeys{
    "nodes", "gpus",    "nvlink_bw",    "nvlink_lat", "nic_bw",        "net_lat", "pcie_bw",
    "rails", "oversub", "core_oversub", "radix",      "nvlink_domain", "nvls",    "sharp"};
constexpr std::array<std::string_view, 1> kFileKeys{"path"};

constexpr std::array kGenerators{
    Generator{"ring", kRingKeys, build_ring},       Generator{"mesh", kMeshKeys, build_mesh},
    Generator{"switch", kSwitchKeys, build_switch}, Generator{"fattree", kFatTreeKeys, build_fattree},
    Generator{"torus", kTorusKeys, build_torus},    Generator{"dgx", kDgxKeys, build_dgx},
    Generator{"file", kFileKeys, build_file}};

}  // namespace

std::span<const Generator> generators() {
  return kGenerators;
}

}  // namespace topology_detail

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// 1-based column of `part` (a view into `text`).
int column_of(std::string_view text, std::string_view part) {
  return static_cast<int>(part.data() - text.data()) + 1;
}

std::string kind_list() {
  std::string out;
  for (const auto& generator : topology_detail::generators()) {
    out += fmt::format("{}{}", out.empty() ? "" : ", ", generator.kind);
  }
  return out;
}

}  // namespace

TopologySpec parse_topology_spec(std::string_view text, std::string_view source) {
  const std::string source_name(source);
  const auto at = [&](std::string_view part) { return SourceLocation{source_name, 0, column_of(text, part)}; };
  TopologySpec spec;
  const std::size_t colon = text.find(':');
  const std::string_view kind = trim(text.substr(0, colon));
  spec.location = SourceLocation{source_name, 0, kind.empty() ? 1 : column_of(text, kind)};
  if (kind.empty()) {
    throw InputError(fmt::format("missing topology kind before ':' (one of: {})", kind_list()), spec.location, "kind");
  }
  if (kind.find_first_of("=,") != std::string_view::npos) {
    throw InputError(fmt::format("expected KIND:key=value,... (e.g. switch:n=8,bw=100Gbps), got '{}'", text),
                     spec.location, "kind");
  }
  spec.kind = std::string(kind);
  if (colon == std::string_view::npos) return spec;

  const std::string_view rest = text.substr(colon + 1);
  if (trim(rest).empty()) return spec;  // `ring:` is the bare kind
  std::size_t start = 0;
  while (start <= rest.size()) {
    const std::size_t comma = std::min(rest.find(',', start), rest.size());
    const std::string_view raw_item = rest.substr(start, comma - start);
    const std::string_view item = trim(raw_item);
    if (item.empty()) {
      throw InputError("empty parameter: expected key=value between commas", at(raw_item), "");
    }
    const std::size_t equals = item.find('=');
    const std::string_view key = trim(item.substr(0, std::min(equals, item.size())));
    if (equals == std::string_view::npos) {
      throw InputError(fmt::format("expected key=value, got '{}'", item), at(item), std::string(key));
    }
    if (key.empty()) throw InputError("missing key before '='", at(item), "");
    const std::string_view after = item.substr(equals + 1);
    const std::string_view value = trim(after);
    if (value.empty()) {
      throw InputError(fmt::format("missing value after '{}='", key), at(after), std::string(key));
    }
    const std::string key_text(key);
    if (spec.params.contains(key_text)) {
      throw InputError(
          fmt::format("duplicate key '{}' (first given at column {})", key, spec.param_locations[key_text].column),
          at(key), key_text);
    }
    spec.params.emplace(key_text, std::string(value));
    spec.param_locations.emplace(key_text, at(value));
    start = comma + 1;
  }
  return spec;
}

Topology build_topology(const TopologySpec& spec) {
  const auto generators = topology_detail::generators();
  const auto generator = std::find_if(generators.begin(), generators.end(),
                                      [&](const auto& candidate) { return candidate.kind == spec.kind; });
  if (generator == generators.end()) {
    throw InputError(fmt::format("unknown topology kind '{}' (valid kinds: {})", spec.kind, kind_list()),
                     topology_detail::known(spec.location), "kind");
  }
  const topology_detail::SpecParams params(spec, generator->keys);
  Topology topology = generator->build(params);
  try {
    topology.check_gpus_connected();
    if (topology.gpu_count() < 2) {
      throw InputError(fmt::format("the topology has {} GPU{}; at least 2 are needed", topology.gpu_count(),
                                   topology.gpu_count() == 1 ? "" : "s"));
    }
  } catch (const InputError& error) {
    const auto where = topology_detail::known(spec.location);
    throw where ? error.at(*where) : error;
  }
  topology.set_description(params.canonical());
  return topology;
}

Topology build_topology(std::string_view spec_text, std::string_view source) {
  return build_topology(parse_topology_spec(spec_text, source));
}

}  // namespace syncsim
