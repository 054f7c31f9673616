#pragma once
// The name of an enum value in one of the training layer's name tables ("?" for a value the table lacks).
#include <array>
#include <string_view>
#include <utility>

namespace syncsim::training_detail {

template <typename E, std::size_t N>
std::string_view name_in(const std::array<std::pair<std::string_view, E>, N>& table, E value) {
  for (const auto& [name, candidate] : table) {
    if (candidate == value) return name;
  }
  return "?";
}

}  // namespace syncsim::training_detail
