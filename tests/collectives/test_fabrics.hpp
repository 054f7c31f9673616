#pragma once
// Fabrics and helpers shared by the collective tests: the 100 Gbps, 5 us links of their closed forms, the first n
// GPUs of a topology, ranks grouped by host, and a collective timed with NCCL's latency model.
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim::test_fabrics {

inline constexpr double kLatency = 5e-6;
inline constexpr double kBandwidth = 12.5e9;  // 100 Gbps

inline std::int64_t to_ps(double seconds) {
  return std::llround(seconds * 1e12);
}

inline std::vector<NodeId> first_gpus(const Topology& topology, std::size_t n) {
  std::vector<NodeId> gpus;
  for (std::size_t r = 0; r < n; ++r) gpus.push_back(topology.gpu(r));
  return gpus;
}

// h hosts of g ranks each, rank r on host r / g.
inline std::vector<std::vector<Rank>> hosts_of(std::uint32_t h, std::uint32_t g) {
  std::vector<std::vector<Rank>> hosts(h);
  for (std::uint32_t r = 0; r < h * g; ++r) hosts[r / g].push_back(Rank{r});
  return hosts;
}

// What `syncsim collective` runs by default: NCCL's latency model, the algorithm (and protocol) given or auto.
inline CollectiveOutcome simulate_nccl(Router& router, std::int64_t size, std::optional<Algorithm> algorithm,
                                       std::optional<Protocol> protocol = std::nullopt) {
  CollectiveSpec spec;
  spec.size = Bytes{size};
  spec.latency = LatencySource::nccl;
  spec.algorithm = algorithm;
  spec.protocol = protocol;
  return simulate_collective(router, spec);
}

}  // namespace syncsim::test_fabrics
