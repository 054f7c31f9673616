#pragma once
// Graphviz DOT import and export.
//
// Import (`file:path=x.dot`): `graph` edges (`--`) are full-duplex links, `digraph` edges (`->`) one direction.
// Node attribute `kind` (gpu, nvswitch, pcie_switch, cpu, nic, network_switch; default gpu), optional `latency`
// (a switch's own delay) and `host`; GPUs are numbered by their `rank` attribute when every GPU has one, else
// by node id in natural order (gpu2 before gpu10). Edge attributes `bw` (required, with unit), `lat` (default
// 0s) and `kind` (nvlink, pcie, network; default network). Export writes the same dialect, so it reads back.
#include <filesystem>
#include <iosfwd>

#include "syncsim/topology/topology.hpp"

namespace syncsim {

Topology read_dot(const std::filesystem::path& path);
Topology read_dot_text(std::string_view text, std::string_view source);
void write_dot(const Topology& topology, std::ostream& out);

}  // namespace syncsim
