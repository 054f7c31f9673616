#include "field_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace syncsim::scenario_detail {

namespace {

std::string joined(std::span<const std::string_view> names) {
  std::string out;
  for (const std::string_view name : names) out += fmt::format("{}{}", out.empty() ? "" : ", ", name);
  return out;
}

const std::string& scalar(const ConfigNode& node, const std::string& path, std::string_view expected) {
  if (node.kind != ConfigNode::Kind::scalar)
    fail(node, path, fmt::format("expected {}, got {}", expected, describe(node)));
  return node.text;
}

// A number, a count or a boolean: a scalar the file tagged `!!str` says it is text, so it is not read as one.
const std::string& untyped_scalar(const ConfigNode& node, const std::string& path, std::string_view expected) {
  const std::string& text = scalar(node, path, expected);
  if (node.tagged_string) {
    fail(node, path, fmt::format("expected {}, got the string '{}' (tagged !!str)", expected, text));
  }
  return text;
}

// Rethrows a units.hpp parser error at the node, keeping the parser's message.
template <typename F>
auto parsed(const ConfigNode& node, const std::string& path, F&& parse) {
  try {
    return parse();
  } catch (const InputError& error) {
    fail(node, path, error.message());
  }
}

bool has_unit(std::string_view text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return !text.empty() && !std::isdigit(static_cast<unsigned char>(text.back())) && text.back() != '.';
}

}  // namespace

void fail(const ConfigNode& node, const std::string& path, const std::string& message) {
  throw InputError(message, node.where, path);
}

std::string choice_message(std::string_view text, std::span<const std::string_view> names) {
  const std::string_view suggestion = closest_name(text, names);
  if (!suggestion.empty()) return fmt::format("unknown value '{}' (did you mean '{}'?)", text, suggestion);
  return fmt::format("unknown value '{}' (expected one of: {})", text, joined(names));
}

MapReader::MapReader(const ConfigNode& node, std::string path, std::initializer_list<std::string_view> keys)
    : node_(node), path_(std::move(path)) {
  if (node.kind != ConfigNode::Kind::mapping && node.kind != ConfigNode::Kind::null) {
    fail(node, path_, fmt::format("expected a mapping (key: value), got {}", describe(node)));
  }
  const std::span<const std::string_view> valid(keys.begin(), keys.size());
  for (const ConfigEntry& entry : node.entries) {
    if (std::find(valid.begin(), valid.end(), entry.key) != valid.end()) continue;
    const std::string_view suggestion = closest_name(entry.key, valid);
    const std::string message = suggestion.empty()
                                    ? fmt::format("unknown key '{}' (valid keys: {})", entry.key, joined(valid))
                                    : fmt::format("unknown key '{}' (did you mean '{}'?)", entry.key, suggestion);
    throw InputError(message, entry.key_where, child_path(path_, entry.key));
  }
}

const ConfigNode* MapReader::get(std::string_view key) const {
  const ConfigNode* value = node_.find(key);
  return value == nullptr || value->kind == ConfigNode::Kind::null ? nullptr : value;
}

const ConfigNode& MapReader::require(std::string_view key, std::string_view why) const {
  if (const ConfigNode* value = get(key)) return *value;
  const std::string reason = why.empty() ? "" : fmt::format(" ({})", why);
  throw InputError(fmt::format("missing required key '{}'{}", key, reason), node_.where, path(key));
}

std::string read_text(const ConfigNode& node, const std::string& path, std::string_view expected) {
  return scalar(node, path, expected);
}

std::int64_t read_count(const ConfigNode& node, const std::string& path, std::int64_t minimum) {
  const std::string& text = untyped_scalar(node, path, "a whole number");
  const std::int64_t value = parsed(node, path, [&] { return parse_count(text); });
  if (value < minimum) fail(node, path, fmt::format("expected a whole number of at least {}, got {}", minimum, value));
  return value;
}

std::int64_t read_whole(const ConfigNode& node, const std::string& path, std::int64_t minimum) {
  const std::string& text = untyped_scalar(node, path, "a whole number");
  const double value = parsed(node, path, [&] { return parse_number(text); });
  if (value != std::floor(value) || std::abs(value) > 9.0e18) {
    fail(node, path, fmt::format("expected a whole number, got '{}'", text));
  }
  if (value < static_cast<double>(minimum)) {
    fail(node, path, fmt::format("expected a whole number of at least {}, got '{}'", minimum, text));
  }
  return static_cast<std::int64_t>(value);
}

double read_number(const ConfigNode& node, const std::string& path) {
  const std::string& text = untyped_scalar(node, path, "a number");
  return parsed(node, path, [&] { return parse_number(text); });
}

double read_number_in(const ConfigNode& node, const std::string& path, double low, double high, bool low_open,
                      std::string_view what) {
  const double value = read_number(node, path);
  if ((low_open ? value <= low : value < low) || value > high) {
    fail(node, path, fmt::format("expected {}, got {}", what, node.text));
  }
  return value;
}

std::optional<bool> bool_text(std::string_view text) {
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  return std::nullopt;
}

bool read_bool(const ConfigNode& node, const std::string& path) {
  const std::string& text = untyped_scalar(node, path, "true or false");
  if (const std::optional<bool> value = bool_text(text)) return *value;
  fail(node, path, fmt::format("expected true or false, got '{}'", text));
}

Bytes read_size(const ConfigNode& node, const std::string& path) {
  const std::string& text = scalar(node, path, "a size like 25MB");
  if (!has_unit(text)) {
    fail(node, path,
         fmt::format("expected a size with a unit like 25MB or 64KiB, got '{}' (a number without its unit)", text));
  }
  return parsed(node, path, [&] { return parse_bytes(text); });
}

Bandwidth read_bandwidth(const ConfigNode& node, const std::string& path) {
  const std::string& text = scalar(node, path, "a bandwidth like 100Gbps");
  const Bandwidth value = parsed(node, path, [&] { return parse_bandwidth(text); });
  if (!(value.bytes_per_second > 0)) fail(node, path, fmt::format("expected a bandwidth above zero, got '{}'", text));
  return value;
}

SimTime read_duration(const ConfigNode& node, const std::string& path) {
  const std::string& text = scalar(node, path, "a time like 2s");
  const SimTime value = parsed(node, path, [&] { return parse_duration(text); });
  if (value < SimTime::zero()) fail(node, path, fmt::format("expected a time of zero or more, got '{}'", text));
  return value;
}

const std::vector<ConfigNode>& read_list(const ConfigNode& node, const std::string& path) {
  static const std::vector<ConfigNode> kEmpty;
  if (node.kind == ConfigNode::Kind::null) return kEmpty;
  if (node.kind != ConfigNode::Kind::sequence) {
    fail(node, path, fmt::format("expected a list, got {}", describe(node)));
  }
  return node.items;
}

}  // namespace syncsim::scenario_detail
