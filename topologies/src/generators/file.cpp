// file: a topology read from a file. Graphviz DOT for now; NCCL's topology XML dump is a later addition.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "generators.hpp"
#include "syncsim/topology/dot_io.hpp"

namespace syncsim::topology_detail {

Topology build_file(const SpecParams& params) {
  std::filesystem::path path = params.text("path");
  // A path written in a file (line > 0) is relative to that file, as include paths are; one on the command line
  // is relative to the working directory.
  const auto where = params.location("path");
  if (path.is_relative() && where && where->line > 0) path = std::filesystem::path(where->source).parent_path() / path;
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension != ".dot" && extension != ".gv") {
    params.fail("path", fmt::format("unsupported file type '{}' for '{}': expected .dot or .gv (Graphviz)",
                                    extension.empty() ? "(none)" : extension, path.string()));
  }
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    params.fail("path", fmt::format("no such file '{}'", path.string()));
  }
  return read_dot(path);
}

}  // namespace syncsim::topology_detail
