// file: a topology read from a file, by extension: Graphviz DOT (.dot, .gv) or NCCL's topology XML dump (.xml).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "generators.hpp"
#include "syncsim/core/input_file.hpp"
#include "syncsim/topology/dot_io.hpp"
#include "syncsim/topology/nccl_xml_io.hpp"

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
  const bool xml = extension == ".xml";
  if (extension != ".dot" && extension != ".gv" && !xml) {
    params.fail("path", fmt::format("unsupported file type '{}' for '{}': expected .dot or .gv (Graphviz) or .xml "
                                    "(NCCL topology dump)",
                                    extension.empty() ? "(none)" : extension, path.string()));
  }
  std::error_code error;
  if (!std::filesystem::exists(path, error)) params.fail("path", fmt::format("no such file '{}'", path.string()));
  if (const std::string kind = non_regular_kind(path); !kind.empty()) {
    params.fail("path", fmt::format("'{}' is {}, not a regular file", path.string(), kind));
  }
  return xml ? read_nccl_xml(path) : read_dot(path);
}

}  // namespace syncsim::topology_detail
