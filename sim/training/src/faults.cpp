#include "syncsim/training/faults.hpp"

namespace syncsim {

namespace {

template <typename E, std::size_t N>
std::string_view name_in(const std::array<std::pair<std::string_view, E>, N>& table, E value) {
  for (const auto& [name, candidate] : table) {
    if (candidate == value) return name;
  }
  return "?";
}

}  // namespace

std::string_view to_string(FaultKind kind) {
  return name_in(kFaultKindNames, kind);
}

std::string_view to_string(FaultPolicy policy) {
  return name_in(kFaultPolicyNames, policy);
}

}  // namespace syncsim
