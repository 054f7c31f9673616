#pragma once
// CollectiveCache: simulated collectives, kept by everything their outcome depends on, for the runs of one
// Workspace (workspace.hpp). A sweep runs many scenarios that differ only in what does not change a collective
// (batch size, the model, the iteration count...), so the same AllReduce on the same network recurs; simulating
// it once per workspace instead of once per run is what keeps large sweeps fast.
//
// Safe: the simulation is deterministic, so a cached outcome is byte-for-byte what a new simulation would give,
// and the results of a sweep do not depend on which thread simulated a collective first. The key is typed and
// compared in full: a digest of the built topology's contents (every node and link with its kind, bandwidth,
// latency and host — so a topology file edited between two runs is a new network, whatever its path) and every
// field of the collective spec (op, size, ranks, algorithm, protocol, channels, latency source and ceiling, root,
// slices, execution, steps recorded). Calibrated models are not cached here.
//
// Thread-safe; bounded (kMaxEntries); entries are never evicted, only cleared all at once by the owner.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim::run {

// What a topology is for a collective: a hash of its contents, with its size (equal contents, equal digest).
struct TopologyDigest {
  std::uint64_t hash = 0;
  std::size_t nodes = 0;
  std::size_t links = 0;
  bool operator==(const TopologyDigest&) const = default;
};

// Every node (name, kind, latency, host) and every directed link (ends, bandwidth, latency, kind, reverse) in
// order, and the GPU numbering; not the description (a file topology's path).
TopologyDigest digest(const Topology& topology);

// A collective on a topology: the digest and every CollectiveSpec field but the calibration (never cached).
struct CollectiveKey {
  TopologyDigest topology;
  CollectiveOp op = CollectiveOp::allreduce;
  Bytes size;
  std::size_t ranks = 0;
  std::vector<std::vector<std::size_t>> groups;  // CollectiveSpec::groups
  std::optional<Algorithm> algorithm;
  bool any_algorithm = false;
  std::optional<Protocol> protocol;
  std::optional<std::uint32_t> channels;
  LatencySource latency = LatencySource::physical;
  std::optional<Bandwidth> busbw_cap;
  std::optional<int> compute_capability;
  Rank root{0};
  std::optional<std::uint32_t> pipeline_slices;
  bool bulk = true;
  bool symmetry = true;
  std::size_t lockstep_min_transfers = 0;
  bool record_steps = false;
  bool operator==(const CollectiveKey&) const = default;
};

struct CollectiveKeyHash {
  std::size_t operator()(const CollectiveKey& key) const;
};

class CollectiveCache {
 public:
  static constexpr std::size_t kMaxEntries = 100'000;

  // The key of `spec` on the topology with digest `topology`, or nullopt when the spec must not be cached.
  static std::optional<CollectiveKey> key(const TopologyDigest& topology, const CollectiveSpec& spec);

  // The cached outcome for `key` (counted as a hit), or null; it stays valid while held, whatever clear() does.
  std::shared_ptr<const CollectiveOutcome> find(const CollectiveKey& key) const;
  // Keeps `outcome` under `key` (the first one stored wins) unless the cache is full.
  void store(const CollectiveKey& key, const CollectiveOutcome& outcome);

  // Forgets every entry: for an owner whose next runs will not ask for these again (plan's layout search, between
  // candidates).
  void clear();

  std::size_t size() const;
  // How many find() calls found their collective.
  std::size_t hits() const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<CollectiveKey, std::shared_ptr<const CollectiveOutcome>, CollectiveKeyHash> entries_;
  mutable std::size_t hits_ = 0;
};

}  // namespace syncsim::run
