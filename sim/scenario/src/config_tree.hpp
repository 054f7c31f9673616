#pragma once
// ConfigNode: the parsed YAML as plain data, each node with its place in the input.
//
// yaml-cpp parses; this tree is what the rest of the loader reads and what `--set` edits. It drops what yaml-cpp
// would keep hidden from us and adds what it lacks: every node knows its SourceLocation (the file, or `--set`),
// duplicate keys are errors instead of silently shadowed entries, and keys are plain strings.
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/core/input_error.hpp"

namespace syncsim::scenario_detail {

struct ConfigEntry;

struct ConfigNode {
  enum class Kind { null, scalar, sequence, mapping };
  Kind kind = Kind::null;
  std::string text;                  // scalar
  bool plain = true;                 // scalar written without quotes (or block style)
  bool tagged_string = false;        // scalar tagged `!!str` in the file: text, never a number
  std::vector<ConfigNode> items;     // sequence
  std::vector<ConfigEntry> entries;  // mapping, in file order, keys distinct
  SourceLocation where;

  const ConfigNode* find(std::string_view key) const;
  ConfigNode* find(std::string_view key);
};

struct ConfigEntry {
  std::string key;
  SourceLocation key_where;
  ConfigNode value;
};

// "a mapping", "a list", "the text 'abc'", "nothing".
std::string describe(const ConfigNode& node);

// Parses one YAML document. Syntax errors, several documents, duplicate keys and keys that are not plain
// strings are InputErrors at `source`:line:column. `key_prefix` is prepended to key paths in those errors.
// `line_known`: false for one-line text without a position worth printing (a `--set` value): every node then
// has `source` with line and column 0.
ConfigNode parse_config(std::string_view yaml, const std::string& source, const std::string& key_prefix = {},
                        bool line_known = true);

}  // namespace syncsim::scenario_detail
