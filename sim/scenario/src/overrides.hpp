#pragma once
// `--set key.path=value`: edits of the parsed tree, applied before validation so that an override is checked
// exactly like the file (an unknown key, a missing unit), with `--set` as its source.
#include <string>
#include <vector>

#include "config_tree.hpp"

namespace syncsim::scenario_detail {

inline constexpr const char* kOverrideSource = "--set";

// Applies the overrides in order. Paths are `a.b.c`; list items are `a[0].b` (or `a.0.b`). Missing mappings on
// the way are created; list items must exist. The value is YAML (`5`, `2s`, `[1, 2]`, `{rank: 3}`); an empty
// value is null, which reads as "not given".
void apply_overrides(ConfigNode& root, const std::vector<std::string>& overrides);

}  // namespace syncsim::scenario_detail
