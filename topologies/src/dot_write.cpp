// DOT export in the dialect read_dot() reads, with values written so they parse back to the same numbers.
#include <fmt/format.h>

#include <ostream>

#include "syncsim/topology/dot_io.hpp"

namespace syncsim {

namespace {

// The most readable unit that parses back to exactly the same double: Gbps for link rates quoted in bits, GB/s
// for rates in bytes, else plain bytes per second. fmt's shortest round-trip formatting does the rest.
std::string bandwidth_text(Bandwidth bw) {
  const double bps = bw.bytes_per_second;
  const double gbits = bps * 8 / 1e9;
  if (gbits * (1e9 / 8) == bps) return fmt::format("{}Gbps", gbits);
  const double gbytes = bps / 1e9;
  if (gbytes * 1e9 == bps) return fmt::format("{}GB/s", gbytes);
  return fmt::format("{}B/s", bps);
}

std::string duration_text(SimTime t) {
  const std::int64_t ps = t.ps();
  if (ps == 0) return "0s";
  if (ps % 1'000'000 == 0) return fmt::format("{}us", ps / 1'000'000);
  if (ps % 1'000 == 0) return fmt::format("{}ns", ps / 1'000);
  return fmt::format("{}ps", ps);
}

std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

// A graph (undirected) describes the topology exactly when every link has a reverse with the same parameters.
bool all_symmetric(const Topology& topology) {
  for (std::uint32_t l = 0; l < topology.link_count(); ++l) {
    const Link& link = topology.link(LinkId{l});
    if (link.reverse == LinkId{l}) return false;
    const Link& back = topology.link(link.reverse);
    if (back.bandwidth != link.bandwidth || back.latency != link.latency || back.kind != link.kind) return false;
  }
  return true;
}

}  // namespace

void write_dot(const Topology& topology, std::ostream& out) {
  const bool undirected = all_symmetric(topology);
  out << "// syncsim topology";
  if (!topology.description().empty()) out << ": " << topology.description();
  out << '\n' << (undirected ? "graph" : "digraph") << " topology {\n";
  for (std::uint32_t v = 0; v < topology.node_count(); ++v) {
    const NodeId id{v};
    const Node& node = topology.node(id);
    out << "  " << quoted(node.name) << " [kind=" << quoted(to_string(node.kind));
    if (const auto index = topology.gpu_index(id)) out << ", rank=\"" << *index << '"';
    if (node.latency != SimTime::zero()) out << ", latency=" << quoted(duration_text(node.latency));
    if (node.host) out << ", host=\"" << *node.host << '"';
    if (node.reduction != SwitchReduction::off) out << ", reduction=" << quoted(to_string(node.reduction));
    out << "];\n";
  }
  const std::string_view arrow = undirected ? " -- " : " -> ";
  for (std::uint32_t l = 0; l < topology.link_count(); ++l) {
    const Link& link = topology.link(LinkId{l});
    if (undirected && link.reverse.value() < l) continue;  // the pair was written from its first direction
    out << "  " << quoted(topology.node(link.src).name) << arrow << quoted(topology.node(link.dst).name)
        << " [bw=" << quoted(bandwidth_text(link.bandwidth)) << ", lat=" << quoted(duration_text(link.latency))
        << ", kind=" << quoted(to_string(link.kind)) << "];\n";
  }
  out << "}\n";
}

}  // namespace syncsim
