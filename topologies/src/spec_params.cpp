#include "spec_params.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace syncsim::topology_detail {

std::optional<SourceLocation> known(const SourceLocation& location) {
  if (location.source.empty() && location.line == 0 && location.column == 0) return std::nullopt;
  return location;
}

SpecParams::SpecParams(const TopologySpec& spec, std::span<const std::string_view> keys) : spec_(spec), keys_(keys) {
  for (const auto& [key, text] : spec_.params) {
    if (std::find(keys_.begin(), keys_.end(), key) == keys_.end()) {
      fail(key, fmt::format("unknown key '{}' for {} (valid keys: {})", key, spec_.kind, key_list()));
    }
  }
}

bool SpecParams::has(std::string_view key) const {
  return spec_.params.contains(std::string(key));
}

std::optional<SourceLocation> SpecParams::location(std::string_view key) const {
  const auto found = spec_.param_locations.find(std::string(key));
  if (found != spec_.param_locations.end()) return known(found->second);
  return known(spec_.location);
}

void SpecParams::fail(std::string_view key, const std::string& message) const {
  throw InputError(message, location(key), std::string(key));
}

const std::string* SpecParams::value(std::string_view key, bool required) const {
  const auto found = spec_.params.find(std::string(key));
  if (found != spec_.params.end()) return &found->second;
  if (required) fail(key, fmt::format("{} needs key '{}' (keys: {})", spec_.kind, key, key_list()));
  return nullptr;
}

// Runs a units.hpp parser, giving its error the key and location.
template <typename Parse>
auto parsed(const SpecParams& params, std::string_view key, const std::string& text, Parse parse) {
  try {
    return parse(text);
  } catch (const InputError& error) {
    const auto where = params.location(key);
    throw where ? error.at(*where).with_key(std::string(key)) : error.with_key(std::string(key));
  }
}

std::int64_t SpecParams::count(std::string_view key, std::optional<std::int64_t> fallback) const {
  const std::string* text = value(key, !fallback);
  if (!text) return *fallback;
  return parsed(*this, key, *text, [](const std::string& t) { return parse_count(t); });
}

double SpecParams::number(std::string_view key, std::optional<double> fallback) const {
  const std::string* text = value(key, !fallback);
  if (!text) return *fallback;
  return parsed(*this, key, *text, [](const std::string& t) { return parse_number(t); });
}

Bandwidth SpecParams::bandwidth(std::string_view key, std::optional<Bandwidth> fallback) const {
  const std::string* text = value(key, !fallback);
  if (!text) return *fallback;
  const Bandwidth bw = parsed(*this, key, *text, [](const std::string& t) { return parse_bandwidth(t); });
  if (!(bw.bytes_per_second > 0)) fail(key, fmt::format("bandwidth must be greater than zero, got '{}'", *text));
  return bw;
}

SimTime SpecParams::duration(std::string_view key, std::optional<SimTime> fallback) const {
  const std::string* text = value(key, !fallback);
  if (!text) return *fallback;
  const SimTime t = parsed(*this, key, *text, [](const std::string& s) { return parse_duration(s); });
  if (t < SimTime::zero()) fail(key, fmt::format("latency must not be negative, got '{}'", *text));
  return t;
}

LinkKind SpecParams::link_kind(std::string_view key, LinkKind fallback) const {
  const std::string* text = value(key, false);
  if (!text) return fallback;
  return parsed(*this, key, *text, [](const std::string& t) { return parse_link_kind(t); });
}

SwitchReduction SpecParams::switch_reduction(std::string_view key, SwitchReduction fallback) const {
  const std::string* text = value(key, false);
  if (!text) return fallback;
  return parsed(*this, key, *text, [](const std::string& t) { return parse_switch_reduction(t); });
}

std::string SpecParams::text(std::string_view key) const {
  return *value(key, true);
}

std::string SpecParams::canonical() const {
  std::string out = spec_.kind;
  char separator = ':';
  for (const std::string_view key : keys_) {
    const std::string* text = value(key, false);
    if (!text) continue;
    out += fmt::format("{}{}={}", separator, key, *text);
    separator = ',';
  }
  return out;
}

std::string SpecParams::key_list() const {
  std::string out;
  for (const std::string_view key : keys_) {
    if (!out.empty()) out += ", ";
    out += key;
  }
  return out;
}

}  // namespace syncsim::topology_detail
