// A `file:` topology built as `syncsim topo file:path=X` builds it: the input is written to a temporary .dot or .xml
// file (XML when its first non-blank byte is '<', else DOT), then read through the spec path
// (parse_topology_spec + build_topology, with the extension dispatch and the file checks of the `file` generator),
// then summarized as the topo command prints it (bisection max-flow and diameter).
//
// The dot and nccl_xml targets fuzz the text readers; this one covers what lies around them: the file generator,
// read_input_file, the GPU-connectivity check and the summary on every topology a file can describe. A summary
// costs a max-flow and one search per group of GPUs, so it runs only on topologies up to kMaxFuzzGpus GPUs and
// kMaxSummaryNodes nodes: the fuzzer stays on reading.
#include <cctype>
#include <filesystem>
#include <string>

#include "fuzz_targets.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/topology_spec.hpp"
#include "syncsim/topology/topology_summary.hpp"

namespace syncsim::fuzz {

namespace {

constexpr std::size_t kMaxSummaryNodes = 4096;

bool looks_like_xml(std::string_view text) {
  for (const char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) return c == '<';
  }
  return false;
}

}  // namespace

int fuzz_topology_file(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  const std::filesystem::path path =
      scratch_folder("topology-file") / (looks_like_xml(text) ? "input.xml" : "input.dot");
  write_scratch_file(path, text);
  try {
    const TopologySpec spec = parse_topology_spec("file:path=" + path.string(), "SPEC");
    const Topology topology = build_topology(spec);
    if (topology.gpu_count() <= static_cast<std::size_t>(kMaxFuzzGpus) && topology.node_count() <= kMaxSummaryNodes) {
      (void)to_text(summarize(topology), topology);
    }
  } catch (const InputError&) {
  }
  return 0;
}

}  // namespace syncsim::fuzz
