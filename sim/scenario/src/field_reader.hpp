#pragma once
// Typed reads of scenario values from the ConfigNode tree, each failing with an InputError at the value's place
// and its key path. Sections read their mapping with a MapReader, which rejects unknown keys up front (with the
// closest valid key as a suggestion) and reports missing ones at the mapping.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config_tree.hpp"
#include "key_path.hpp"
#include "syncsim/core/closest_name.hpp"
#include "syncsim/core/units.hpp"
#include "syncsim/scenario/located.hpp"

namespace syncsim::scenario_detail {

[[noreturn]] void fail(const ConfigNode& node, const std::string& path, const std::string& message);

class MapReader {
 public:
  // `node` must be a mapping (a null node reads as an empty one) whose keys are all among `keys`.
  MapReader(const ConfigNode& node, std::string path, std::initializer_list<std::string_view> keys);

  // The value, or nullptr when the key is absent or has no value (`key:` alone, `~`, `null`).
  const ConfigNode* get(std::string_view key) const;
  // The value; when absent, an error at the mapping: "missing required key '...' (why)".
  const ConfigNode& require(std::string_view key, std::string_view why = {}) const;

  std::string path(std::string_view key) const { return child_path(path_, key); }
  const std::string& path() const { return path_; }
  const SourceLocation& where() const { return node_.where; }
  // A value the file does not give: located at the source with no line, keyed by its path.
  template <typename T>
  Located<T> defaulted(std::string_view key, T value) const {
    return Located<T>{std::move(value), SourceLocation{node_.where.source, 0, 0}, path(key)};
  }
  // The same with T's empty value, built in place: moving an empty std::optional of a class with a vector is what
  // GCC 12's -Wmaybe-uninitialized misreads under the sanitizers (`scripts/test --sanitize`).
  template <typename T>
  Located<T> defaulted_empty(std::string_view key) const {
    return Located<T>{T{}, SourceLocation{node_.where.source, 0, 0}, path(key)};
  }

 private:
  const ConfigNode& node_;
  std::string path_;
};

template <typename T>
Located<T> located(T value, const ConfigNode& node, std::string path) {
  return Located<T>{std::move(value), node.where, std::move(path)};
}

// Scalars. Counts reject fractions and signs below `minimum`; `whole` also takes 1.5e6-style whole numbers.
std::string read_text(const ConfigNode& node, const std::string& path, std::string_view expected = "a name");
std::int64_t read_count(const ConfigNode& node, const std::string& path, std::int64_t minimum);
std::int64_t read_whole(const ConfigNode& node, const std::string& path, std::int64_t minimum);
double read_number(const ConfigNode& node, const std::string& path);
bool read_bool(const ConfigNode& node, const std::string& path);
// The spellings read_bool takes (true, True, TRUE and false's), nullopt for any other text.
std::optional<bool> bool_text(std::string_view text);
// Units are required (a bare number is an error); sizes >= 0, bandwidths > 0, times >= 0.
Bytes read_size(const ConfigNode& node, const std::string& path);
Bandwidth read_bandwidth(const ConfigNode& node, const std::string& path);
SimTime read_duration(const ConfigNode& node, const std::string& path);
// A number that must lie in (low, high] or [low, high] — `what` names the range in the message.
double read_number_in(const ConfigNode& node, const std::string& path, double low, double high, bool low_open,
                      std::string_view what);

// One of a fixed set of names (a table from enum_names.hpp).
std::string choice_message(std::string_view text, std::span<const std::string_view> names);

template <typename E, std::size_t N>
E read_choice(const ConfigNode& node, const std::string& path,
              const std::array<std::pair<std::string_view, E>, N>& choices) {
  const std::string text = read_text(node, path);
  std::vector<std::string_view> names;
  for (const auto& [name, value] : choices) {
    if (name == text) return value;
    names.push_back(name);
  }
  fail(node, path, choice_message(text, names));
}

// A list (a null node reads as an empty one).
const std::vector<ConfigNode>& read_list(const ConfigNode& node, const std::string& path);

}  // namespace syncsim::scenario_detail
