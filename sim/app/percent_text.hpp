#pragma once
// A fraction as the commands print it: 0.0123 -> "1.2%".
#include <fmt/format.h>

#include <string>

namespace syncsim::app {

inline std::string percent(double fraction) {
  return fmt::format("{:.1f}%", 100 * fraction);
}

}  // namespace syncsim::app
