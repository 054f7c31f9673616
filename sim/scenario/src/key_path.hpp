#pragma once
// Key paths as errors print them and `--set` takes them: `training.bucket_size`, `faults[0].at`.
#include <cstddef>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace syncsim::scenario_detail {

inline std::string child_path(std::string_view parent, std::string_view key) {
  return parent.empty() ? std::string(key) : fmt::format("{}.{}", parent, key);
}

inline std::string item_path(std::string_view parent, std::size_t index) {
  return fmt::format("{}[{}]", parent, index);
}

}  // namespace syncsim::scenario_detail
