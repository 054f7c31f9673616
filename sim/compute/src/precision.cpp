#include "syncsim/compute/precision.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <utility>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {
constexpr std::array<std::pair<Precision, std::string_view>, 4> kNames{{
    {Precision::fp32, "fp32"},
    {Precision::tf32, "tf32"},
    {Precision::fp16, "fp16"},
    {Precision::bf16, "bf16"},
}};

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}
}  // namespace

std::string_view to_string(Precision precision) {
  for (const auto& [candidate, name] : kNames) {
    if (candidate == precision) return name;
  }
  return "?";
}

Precision parse_precision(std::string_view text) {
  for (const auto& [precision, name] : kNames) {
    if (equal_ignoring_case(name, text)) return precision;
  }
  throw InputError(fmt::format("unknown precision '{}': expected fp32, tf32, fp16 or bf16", text));
}

std::int64_t element_bytes(Precision precision) {
  return is_mixed(precision) ? 2 : 4;
}

bool is_mixed(Precision precision) {
  return precision == Precision::fp16 || precision == Precision::bf16;
}

}  // namespace syncsim
