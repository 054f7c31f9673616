#include "syncsim/run/collective_cache.hpp"

#include <bit>
#include <string_view>

namespace syncsim::run {

namespace {

// Word by word: multiply-xorshift mixing (fast on topologies of millions of links), finished by splitmix64's
// avalanche so that nearby inputs spread over the whole word.
class Hasher {
 public:
  void add(std::uint64_t value) {
    hash_ = (hash_ ^ value) * 0x9e3779b97f4a7c15ULL;
    hash_ ^= hash_ >> 29;
  }
  void add(double value) { add(std::bit_cast<std::uint64_t>(value)); }
  void add(std::string_view text) {
    add(static_cast<std::uint64_t>(text.size()));
    for (const char c : text) add(static_cast<std::uint64_t>(static_cast<unsigned char>(c)));
  }
  template <typename T>
  void add(const std::optional<T>& value) {
    add(static_cast<std::uint64_t>(value.has_value()));
    if (value) add(static_cast<std::uint64_t>(*value));
  }
  std::uint64_t value() const {
    std::uint64_t z = hash_ + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

}  // namespace

TopologyDigest digest(const Topology& topology) {
  Hasher h;
  for (std::size_t i = 0; i < topology.node_count(); ++i) {
    const Node& node = topology.node(NodeId{static_cast<std::uint32_t>(i)});
    h.add(node.name);
    h.add(static_cast<std::uint64_t>(node.kind));
    h.add(static_cast<std::uint64_t>(node.latency.ps()));
    h.add(node.host);
    h.add(static_cast<std::uint64_t>(node.reduction));
  }
  for (std::size_t i = 0; i < topology.link_count(); ++i) {
    const Link& link = topology.link(LinkId{static_cast<std::uint32_t>(i)});
    h.add(static_cast<std::uint64_t>(link.src.value()));
    h.add(static_cast<std::uint64_t>(link.dst.value()));
    h.add(link.bandwidth.bytes_per_second);
    h.add(static_cast<std::uint64_t>(link.latency.ps()));
    h.add(static_cast<std::uint64_t>(link.kind));
    h.add(static_cast<std::uint64_t>(link.reverse.value()));
  }
  for (std::size_t g = 0; g < topology.gpu_count(); ++g) h.add(static_cast<std::uint64_t>(topology.gpu(g).value()));
  return {h.value(), topology.node_count(), topology.link_count()};
}

std::size_t CollectiveKeyHash::operator()(const CollectiveKey& k) const {
  Hasher h;
  h.add(k.topology.hash);
  h.add(static_cast<std::uint64_t>(k.op));
  h.add(static_cast<std::uint64_t>(k.size.value));
  h.add(static_cast<std::uint64_t>(k.ranks));
  for (const std::vector<std::size_t>& group : k.groups) {
    h.add(static_cast<std::uint64_t>(group.size()));
    for (const std::size_t gpu : group) h.add(static_cast<std::uint64_t>(gpu));
  }
  h.add(k.algorithm);
  h.add(static_cast<std::uint64_t>(k.any_algorithm));
  h.add(k.protocol);
  h.add(k.channels);
  h.add(static_cast<std::uint64_t>(k.latency));
  h.add(k.busbw_cap ? k.busbw_cap->bytes_per_second : -1.0);
  h.add(static_cast<std::uint64_t>(k.compute_capability.value_or(-1)));
  h.add(static_cast<std::uint64_t>(k.root.value()));
  h.add(k.pipeline_slices);
  h.add(static_cast<std::uint64_t>(k.bulk));
  h.add(static_cast<std::uint64_t>(k.symmetry));
  h.add(static_cast<std::uint64_t>(k.lockstep_min_transfers));
  h.add(static_cast<std::uint64_t>(k.record_steps));
  return static_cast<std::size_t>(h.value());
}

std::optional<CollectiveKey> CollectiveCache::key(const TopologyDigest& topology, const CollectiveSpec& spec) {
  if (spec.latency == LatencySource::calibrated || spec.calibration != nullptr) return std::nullopt;
  return CollectiveKey{.topology = topology,
                       .op = spec.op,
                       .size = spec.size,
                       .ranks = spec.ranks,
                       .groups = spec.groups,
                       .algorithm = spec.algorithm,
                       .any_algorithm = spec.any_algorithm,
                       .protocol = spec.protocol,
                       .channels = spec.channels,
                       .latency = spec.latency,
                       .busbw_cap = spec.busbw_cap,
                       .compute_capability = spec.compute_capability,
                       .root = spec.root,
                       .pipeline_slices = spec.pipeline_slices,
                       .bulk = spec.bulk,
                       .symmetry = spec.symmetry,
                       .lockstep_min_transfers = spec.lockstep_min_transfers,
                       .record_steps = spec.record_steps};
}

std::shared_ptr<const CollectiveOutcome> CollectiveCache::find(const CollectiveKey& key) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(key);
  if (it == entries_.end()) return nullptr;
  ++hits_;
  return it->second;
}

void CollectiveCache::store(const CollectiveKey& key, const CollectiveOutcome& outcome) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (entries_.size() >= kMaxEntries || entries_.contains(key)) return;
  entries_.emplace(key, std::make_shared<const CollectiveOutcome>(outcome));
}

void CollectiveCache::clear() {
  const std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
}

std::size_t CollectiveCache::size() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

std::size_t CollectiveCache::hits() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return hits_;
}

}  // namespace syncsim::run
