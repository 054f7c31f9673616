#pragma once
// The built-in topology generators behind the spec kinds (docs/topologies.md), one file per family.
//
// Each generator reads its keys through SpecParams (which has already rejected unknown keys) and returns the
// topology; build_topology() then sets the description and checks that the GPUs are connected.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "../spec_params.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim::topology_detail {

struct Generator {
  std::string_view kind;
  std::span<const std::string_view> keys;  // accepted keys, in the order the description lists them
  Topology (*build)(const SpecParams& params);
};

// All generators, in the order error messages list them.
std::span<const Generator> generators();

Topology build_ring(const SpecParams& params);
Topology build_mesh(const SpecParams& params);
Topology build_switch(const SpecParams& params);
Topology build_torus(const SpecParams& params);
Topology build_fattree(const SpecParams& params);
Topology build_dgx(const SpecParams& params);
Topology build_file(const SpecParams& params);

// Far beyond any cluster we model, small enough that node and link ids stay 32-bit.
inline constexpr std::int64_t kMaxGpus = std::int64_t{1} << 20;

// Shared by generators: the number of groups of `b` that hold `a` things.
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// Shared by generators: n GPUs named gpu0..gpu{n-1}, added first so node id == GPU index.
std::vector<NodeId> add_gpus(Topology& topology, std::int64_t count, std::optional<int> host = std::nullopt);
// A count key that must be at least `minimum` (and at most `maximum`, which keeps generated sizes sane).
std::int64_t count_in_range(const SpecParams& params, std::string_view key, std::optional<std::int64_t> fallback,
                            std::int64_t minimum, std::int64_t maximum);

}  // namespace syncsim::topology_detail
