#include "memory_text.hpp"

#include <fmt/format.h>

namespace syncsim::app {

std::string gib_text(Bytes bytes) {
  return fmt::format("{:.2f} GiB", static_cast<double>(bytes.value) / (1LL << 30));
}

std::string memory_verdict(const MemoryReport& m) {
  return fmt::format("{}: {} of {}{}", m.fits ? "fits" : "DOES NOT FIT", gib_text(m.total), gib_text(m.capacity),
                     m.fits ? "" : fmt::format(" (short by {})", gib_text(m.shortfall)));
}

}  // namespace syncsim::app
