#include "syncsim/compute/optimizer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {
constexpr std::int64_t kFp32StateBytes = 4;
// Momentum keeps one FP32 tensor per parameter, Adam two (first and second moment).
std::int64_t moment_tensors(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::sgd:
      return 0;
    case Optimizer::momentum:
      return 1;
    case Optimizer::adam:
      return 2;
  }
  return 0;
}
}  // namespace

std::string_view to_string(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::sgd:
      return "sgd";
    case Optimizer::momentum:
      return "momentum";
    case Optimizer::adam:
      return "adam";
  }
  return "?";
}

Optimizer parse_optimizer(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  if (lower == "sgd") return Optimizer::sgd;
  if (lower == "momentum") return Optimizer::momentum;
  if (lower == "adam" || lower == "adamw") return Optimizer::adam;
  throw InputError(fmt::format("unknown optimizer '{}': expected sgd, momentum or adam", text));
}

std::int64_t optimizer_state_bytes(Optimizer optimizer, Precision precision) {
  const std::int64_t master = is_mixed(precision) ? kFp32StateBytes : 0;
  return master + kFp32StateBytes * moment_tensors(optimizer);
}

std::int64_t optimizer_step_bytes(Optimizer optimizer) {
  // Weights and gradient in, weights out (12 bytes either way, see the header), then each moment in and out.
  constexpr std::int64_t kBaseBytes = 12;
  return kBaseBytes + 2 * kFp32StateBytes * moment_tensors(optimizer);
}

}  // namespace syncsim
