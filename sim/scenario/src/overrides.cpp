#include "overrides.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include "key_path.hpp"
#include "sections.hpp"

namespace syncsim::scenario_detail {

namespace {

const SourceLocation kHere{kOverrideSource, 0, 0};

struct Segment {
  std::string key;                   // a mapping key (also set for a bare number: it may be either)
  std::optional<std::size_t> index;  // a list index: `[3]`, or a bare `3`
  bool bracketed = false;            // `[3]` is always an index
};

[[noreturn]] void fail_at(const std::string& key, const std::string& message) {
  throw InputError(message, kHere, key);
}

std::optional<std::size_t> as_index(std::string_view text) {
  std::size_t index = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), index);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return index;
}

std::vector<Segment> split_path(const std::string& path) {
  std::vector<Segment> segments;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t dot = std::min(path.find('.', start), path.size());
    std::string_view part = std::string_view(path).substr(start, dot - start);
    const std::size_t bracket = part.find('[');
    const std::string_view key = part.substr(0, bracket);
    if (key.empty() && bracket != 0) fail_at(path, "empty key in the path (expected a.b.c)");
    if (!key.empty()) segments.push_back(Segment{std::string(key), as_index(key), false});
    part.remove_prefix(std::min(bracket, part.size()));
    while (!part.empty()) {
      const std::size_t close = part.find(']');
      const auto index =
          part.front() == '[' && close != std::string_view::npos ? as_index(part.substr(1, close - 1)) : std::nullopt;
      if (!index) fail_at(path, "expected a list index like [0] after a key");
      segments.push_back(Segment{{}, index, true});
      part.remove_prefix(close + 1);
    }
    start = dot + 1;
  }
  return segments;
}

ConfigNode null_here() {
  ConfigNode node;
  node.where = kHere;
  return node;
}

// The node at `segment` below `current` (whose key path is `path`), created when it is a missing mapping key.
ConfigNode& step(ConfigNode& current, const Segment& segment, std::string& path) {
  if (segment.index && (segment.bracketed || current.kind == ConfigNode::Kind::sequence)) {
    if (current.kind != ConfigNode::Kind::sequence) {
      fail_at(item_path(path, *segment.index), fmt::format("'{}' is {}, not a list", path, describe(current)));
    }
    if (*segment.index >= current.items.size()) {
      fail_at(item_path(path, *segment.index),
              fmt::format("'{}' has {} item{}", path, current.items.size(), current.items.size() == 1 ? "" : "s"));
    }
    path = item_path(path, *segment.index);
    return current.items[*segment.index];
  }
  if (current.kind == ConfigNode::Kind::null) {
    current.kind = ConfigNode::Kind::mapping;
    current.where = kHere;
  }
  // A topology written as a spec string takes `cluster.topology.KEY=V` like the mapping form.
  if (current.kind == ConfigNode::Kind::scalar && path == "cluster.topology") {
    current = topology_string_to_mapping(current, path);
  }
  const std::string key_path = child_path(path, segment.key);
  if (current.kind != ConfigNode::Kind::mapping) {
    fail_at(key_path,
            fmt::format("'{}' is {}, not a mapping", path.empty() ? "the document" : path, describe(current)));
  }
  path = key_path;
  if (ConfigNode* existing = current.find(segment.key)) return *existing;
  current.entries.push_back(ConfigEntry{segment.key, kHere, null_here()});
  return current.entries.back().value;
}

}  // namespace

void apply_overrides(ConfigNode& root, const std::vector<std::string>& overrides) {
  for (const std::string& text : overrides) {
    const std::size_t equals = text.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw InputError(fmt::format("expected key.path=value, got '{}'", text), kHere);
    }
    const std::string key(text.substr(0, equals));
    const std::vector<Segment> segments = split_path(key);
    std::string path;
    ConfigNode* node = &root;
    for (const Segment& segment : segments) node = &step(*node, segment, path);
    *node = parse_config(std::string_view(text).substr(equals + 1), kOverrideSource, path, false);
  }
}

}  // namespace syncsim::scenario_detail
