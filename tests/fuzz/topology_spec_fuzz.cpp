// Topology spec strings (`KIND:key=value,...`): parse, then build what parses (within the size cap).
#include "fuzz_targets.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/topology_spec.hpp"

namespace syncsim::fuzz {

int fuzz_topology_spec(const std::uint8_t* data, std::size_t size) {
  try {
    const TopologySpec spec = parse_topology_spec(as_text(data, size), "--topology");
    if (small_enough_to_build(spec)) (void)build_topology(spec);
  } catch (const InputError&) {
  }
  return 0;
}

}  // namespace syncsim::fuzz
