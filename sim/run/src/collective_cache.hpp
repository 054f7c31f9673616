#pragma once
// A process-wide cache of simulated collectives, shared by every run in the process. A sweep runs many scenarios
// that differ only in what does not change a collective (batch size, model precision of another bucket, the
// iteration count...), so the same AllReduce on the same network recurs; simulating it once per process instead
// of once per run is what keeps large sweeps fast.
//
// Safe: the simulation is deterministic, so a cached outcome is byte-for-byte what a new simulation would give,
// and the results of a sweep do not depend on which thread simulated a collective first. The key is everything
// the outcome depends on: the topology spec (kind and every parameter text; a `file` topology by its path), the
// collective spec (op, size, ranks, algorithm, protocol, channels, latency source and ceiling, steps recorded).
// Calibrated models and changed networks (degraded or failed links) are not cached here.
//
// Thread-safe; bounded (kMaxEntries); entries are never evicted, so a returned reference stays valid.
#include <string>

#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/topology/topology_spec.hpp"

namespace syncsim::run {

class CollectiveCache {
 public:
  static constexpr std::size_t kMaxEntries = 100'000;

  // The process's cache.
  static CollectiveCache& shared();

  // The key of `spec` on the topology built from `topology`, or empty when the spec must not be cached.
  static std::string key(const TopologySpec& topology, const CollectiveSpec& spec);

  // The cached outcome for `key`, or nullptr.
  const CollectiveOutcome* find(const std::string& key) const;
  // Keeps `outcome` under `key` (the first one stored wins) unless the cache is full; returns the stored one, or
  // nullptr when full.
  const CollectiveOutcome* store(const std::string& key, const CollectiveOutcome& outcome);
};

}  // namespace syncsim::run
