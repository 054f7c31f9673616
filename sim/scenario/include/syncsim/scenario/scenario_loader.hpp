#pragma once
// Loading scenarios: YAML text -> validated Scenario, with `--set key.path=value` overrides; and back to YAML.
//
//   Scenario s = load_scenario("run.yaml", {"training.iterations=5", "cluster.topology.nodes=8"});
//
// Every problem is an InputError naming the place and the key path, printed as one line:
//
//   run.yaml:12:16: training.bucket_size: expected a size with a unit like 25MB, got '25' (a number without its unit)
//   --set: training.iteratons: unknown key 'iteratons' (did you mean 'iterations'?)
//
// Overrides are applied to the parsed tree before validation, in order: a later one wins. Each names a key path
// (`a.b.c`, list items as `faults[0].at`) and a YAML value (`5`, `2s`, `gpt2`, `[{rank: 3, factor: 1.5}]`);
// missing intermediate mappings are created. `cluster.topology.KEY=V` also works when the file gives the
// topology as a spec string.
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/scenario/scenario.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim {

Scenario load_scenario(const std::filesystem::path& file, const std::vector<std::string>& overrides = {});

// `source` names the text in messages (a file name); relative paths inside stay as written.
Scenario parse_scenario(std::string_view yaml, std::string_view source, const std::vector<std::string>& overrides = {});

// The resolved scenario (defaults filled in) as YAML, keys in schema order: deterministic, and it loads back to
// the same scenario. Values left to a later stage (workers: all GPUs, algorithm: auto) are written as such.
std::string to_yaml(const Scenario& scenario);

// build_topology() on the scenario's topology, its errors keyed `cluster.topology.KEY` at the value's place in
// the file.
Topology build_scenario_topology(const Scenario& scenario);

// The scenario's topology as the loader keeps it (cluster.built). A generated network (every kind but `file`) is
// built once while some scenario still holds it: loading the same kind and values again shares that build, which
// cannot differ from a new one (the generators are deterministic and the topology is immutable). A plan loads every
// layout candidate of a point with the same network; each would otherwise build its 32,768 GPUs anew.
std::shared_ptr<const BuiltTopology> built_scenario_topology(const Scenario& scenario);

// The scenario's topology, built once: the one the loader built and checked the scenario against
// (cluster.built), while cluster.topology still names the same kind and values; otherwise (a scenario made or
// changed in code) built now by build_scenario_topology.
std::shared_ptr<const Topology> scenario_topology(const Scenario& scenario);

}  // namespace syncsim
