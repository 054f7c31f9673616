// `syncsim topo SPEC [--dot FILE]`: what a topology is made of, its bisection bandwidth and diameter.
#include <iostream>

#include "commands.hpp"
#include "help_format.hpp"
#include "syncsim/core/output_file.hpp"
#include "syncsim/run/memory_budget.hpp"
#include "syncsim/topology/dot_io.hpp"
#include "syncsim/topology/topology_spec.hpp"
#include "syncsim/topology/topology_summary.hpp"

namespace syncsim::app {

namespace {
struct TopoOptions {
  std::string spec;
  std::string dot_path;
};
}  // namespace

Action add_topo_command(CLI::App& app) {
  auto options = std::make_shared<TopoOptions>();
  CLI::App* command = app.add_subcommand("topo", "Summarize a topology (nodes, links, bisection, diameter)");
  set_examples(command, {"syncsim topo dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps --dot dgx.dot",
                         "syncsim topo fattree:n=64,radix=16,bw=100Gbps,oversub=4"});
  command->add_option("SPEC", options->spec, "Topology spec, e.g. fattree:n=64,radix=16,bw=100Gbps,oversub=4")
      ->required();
  command->add_option("--dot", options->dot_path, "Also write the topology as Graphviz DOT to this file");
  return [options]() {
    if (!options->dot_path.empty()) check_output_file(options->dot_path, "--dot");
    const TopologySpec spec = parse_topology_spec(options->spec, "SPEC");
    run::check_memory_budget(spec, "");
    const Topology topology = build_topology(spec);
    std::cout << to_text(summarize(topology), topology);
    if (!options->dot_path.empty()) {
      write_file_atomically(options->dot_path, [&](std::ostream& out) { write_dot(topology, out); });
      std::cout << "dot       " << options->dot_path << '\n';
    }
    return 0;
  };
}

}  // namespace syncsim::app
