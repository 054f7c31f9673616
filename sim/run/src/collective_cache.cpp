#include "collective_cache.hpp"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <mutex>

namespace syncsim::run {

namespace {

struct Storage {
  mutable std::mutex mutex;
  std::map<std::string, std::unique_ptr<CollectiveOutcome>> entries;
};

Storage& storage() {
  static Storage instance;
  return instance;
}

}  // namespace

CollectiveCache& CollectiveCache::shared() {
  static CollectiveCache cache;
  return cache;
}

std::string CollectiveCache::key(const TopologySpec& topology, const CollectiveSpec& spec) {
  if (spec.latency == LatencySource::calibrated || spec.calibration != nullptr) return {};
  std::string key = topology.kind;
  for (const auto& [name, value] : topology.params) key += fmt::format(";{}={}", name, value);
  key += fmt::format(
      "|op={} size={} ranks={} algo={} any={} proto={} ch={} lat={} cap={} root={} slices={} bulk={} "
      "lockstep={} steps={}",
      static_cast<int>(spec.op), spec.size.value, spec.ranks, spec.algorithm ? static_cast<int>(*spec.algorithm) : -1,
      spec.any_algorithm, spec.protocol ? static_cast<int>(*spec.protocol) : -1, spec.channels ? *spec.channels : 0,
      static_cast<int>(spec.latency), spec.busbw_cap ? spec.busbw_cap->bytes_per_second : 0.0, spec.root.value(),
      spec.pipeline_slices ? *spec.pipeline_slices : 0, spec.bulk, spec.lockstep_min_transfers, spec.record_steps);
  return key;
}

const CollectiveOutcome* CollectiveCache::find(const std::string& key) const {
  Storage& s = storage();
  const std::lock_guard<std::mutex> lock(s.mutex);
  const auto it = s.entries.find(key);
  return it == s.entries.end() ? nullptr : it->second.get();
}

const CollectiveOutcome* CollectiveCache::store(const std::string& key, const CollectiveOutcome& outcome) {
  Storage& s = storage();
  const std::lock_guard<std::mutex> lock(s.mutex);
  if (const auto it = s.entries.find(key); it != s.entries.end()) return it->second.get();
  if (s.entries.size() >= kMaxEntries) return nullptr;
  return s.entries.emplace(key, std::make_unique<CollectiveOutcome>(outcome)).first->second.get();
}

}  // namespace syncsim::run
