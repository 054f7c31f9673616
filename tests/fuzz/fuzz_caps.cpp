#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "fuzz_targets.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/units.hpp"
#include "syncsim/topology/topology_spec.hpp"

namespace syncsim::fuzz {
namespace {

// The value of a count key as the generators read it (parse_count), or nullopt when absent or not a count: the
// generator then rejects it itself, before building anything.
std::optional<std::int64_t> count_of(const TopologySpec& spec, const std::string& key) {
  const auto it = spec.params.find(key);
  if (it == spec.params.end()) return std::nullopt;
  try {
    return parse_count(it->second);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

}  // namespace

bool small_enough_to_build(const TopologySpec& spec, std::int64_t max_gpus) {
  if (spec.kind == "file") return false;
  for (const char* key : {"n", "nodes", "gpus"}) {
    if (count_of(spec, key).value_or(0) > max_gpus) return false;
  }
  // dgx: nodes x gpus (gpus defaults to 8).
  if (count_of(spec, "nodes").value_or(1) * count_of(spec, "gpus").value_or(8) > max_gpus) return false;
  // torus: the product of `dims` (4x4x4); each part is bounded before multiplying, so the product cannot overflow.
  if (const auto it = spec.params.find("dims"); it != spec.params.end()) {
    const std::string& text = it->second;
    std::int64_t total = 1;
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t end = std::min(text.find_first_of("xX", start), text.size());
      try {
        const std::int64_t part = parse_count(std::string_view(text).substr(start, end - start));
        if (part > max_gpus) return false;
        total *= std::max<std::int64_t>(part, 1);
        if (total > max_gpus) return false;
      } catch (const InputError&) {
        // Not a count: the torus generator rejects the whole value.
      }
      start = end + 1;
    }
  }
  return true;
}

std::vector<std::string> set_lines(std::string_view text) {
  constexpr std::string_view kSetPrefix = "#--set ";
  std::vector<std::string> overrides;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, end - start);
    if (line.starts_with(kSetPrefix)) overrides.emplace_back(line.substr(kSetPrefix.size()));
    start = end + 1;
  }
  return overrides;
}

const std::filesystem::path& scratch_folder(const std::string& name) {
  static std::map<std::string, std::filesystem::path> folders;
  auto [it, added] = folders.emplace(name, std::filesystem::path());
  if (added) {
    it->second = std::filesystem::temp_directory_path() / ("syncsim-fuzz-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(it->second);
  }
  return it->second;
}

void write_scratch_file(const std::filesystem::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

}  // namespace syncsim::fuzz
