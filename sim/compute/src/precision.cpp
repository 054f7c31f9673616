#include "syncsim/compute/precision.hpp"

#include <fmt/format.h>

#include <cctype>
#include <string>
#include <utility>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {
constexpr std::array<std::pair<Precision, std::string_view>, 8> kNames{{
    {Precision::fp32, "fp32"},
    {Precision::tf32, "tf32"},
    {Precision::fp16, "fp16"},
    {Precision::bf16, "bf16"},
    {Precision::fp8, "fp8"},
    {Precision::mxfp8, "mxfp8"},
    {Precision::nvfp4, "nvfp4"},
    {Precision::mxfp4, "mxfp4"},
}};

// Block-scaled formats carry one scale byte per block: E8M0 per 32 elements (OCP MX), E4M3 per 16 (NVFP4). A
// per-tensor scale is a few bytes per tensor, nothing per element.
constexpr double kMxBlock = 32;
constexpr double kNvfp4Block = 16;
constexpr double kFp8Bytes = 1;
constexpr double kFp4Bytes = 0.5;

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
  std::string names;
  for (const auto& [precision, name] : kNames) {
    if (equal_ignoring_case(name, text)) return precision;
    names += names.empty() ? "" : ", ";
    names += name;
  }
  throw InputError(fmt::format("unknown precision '{}': expected one of {}", text, names));
}

std::int64_t element_bytes(Precision precision) {
  return is_mixed(precision) ? 2 : 4;
}

bool is_mixed(Precision precision) {
  return precision != Precision::fp32 && precision != Precision::tf32;
}

bool is_scaled(Precision precision) {
  return precision == Precision::fp8 || precision == Precision::mxfp8 || precision == Precision::nvfp4 ||
         precision == Precision::mxfp4;
}

Precision companion_precision(Precision precision) {
  return is_scaled(precision) ? Precision::bf16 : precision;
}

double operand_bytes(Precision precision) {
  switch (precision) {
    case Precision::fp8:
      return kFp8Bytes;
    case Precision::mxfp8:
      return kFp8Bytes + 1 / kMxBlock;
    case Precision::nvfp4:
      return kFp4Bytes + 1 / kNvfp4Block;
    case Precision::mxfp4:
      return kFp4Bytes + 1 / kMxBlock;
    default:
      return static_cast<double>(element_bytes(precision));
  }
}

}  // namespace syncsim
