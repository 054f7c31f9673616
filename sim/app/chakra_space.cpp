#include "chakra_space.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <system_error>

#include "syncsim/core/input_error.hpp"

namespace syncsim::app {

namespace {
// What the folder's file system has free for this user; nullopt where it cannot be read.
std::optional<double> free_bytes(const std::filesystem::path& dir) {
  if (const char* test = std::getenv("SYNCSIM_TEST_FREE_BYTES")) return std::strtod(test, nullptr);
  std::error_code error;
  const std::filesystem::space_info space = std::filesystem::space(dir, error);
  if (error) return std::nullopt;
  return static_cast<double>(space.available);
}
// Sizes a person reads: GB from 1 GB up, MB from 1 MB, kB below.
std::string size_text(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.1f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.1f} MB", bytes / 1e6);
  return fmt::format("{:.1f} kB", bytes / 1e3);
}
}  // namespace

void check_chakra_space(const std::filesystem::path& dir, const run::ChakraExport& workload,
                        std::size_t first_trace_nodes, std::size_t first_trace_bytes) {
  if (first_trace_nodes == 0) return;
  const std::optional<double> available = free_bytes(dir);
  if (!available) return;
  const auto ranks = static_cast<double>(workload.ranks());
  const double per_node = static_cast<double>(first_trace_bytes) / static_cast<double>(first_trace_nodes);
  const double at_least = per_node * static_cast<double>(workload.nodes().first) * ranks;
  if (at_least <= *available) return;
  throw InputError(fmt::format(
      "cannot write {} Chakra execution traces into '{}': they take at least {} (rank 0's is {}) and its file "
      "system has {} free",
      workload.ranks(), dir.string(), size_text(at_least), size_text(static_cast<double>(first_trace_bytes)),
      size_text(*available)));
}

}  // namespace syncsim::app
