#include "syncsim/training/embedding_tiers.hpp"

#include <algorithm>
#include <cmath>

namespace syncsim {

double tier_hit_rate(const EmbeddingPlacement& placement, std::size_t t) {
  const TableSharding& s = placement.sharding()[t];
  if (s.type == EmbeddingShardingType::data_parallel) return 1;
  switch (s.kernel) {
    case EmbeddingComputeKernel::fused:
      return 1;
    case EmbeddingComputeKernel::fused_uvm:
      return 0;
    case EmbeddingComputeKernel::fused_uvm_caching: {
      const EmbeddingTable& table = placement.tables()[t];
      const auto cached =
          static_cast<std::int64_t>(std::llround(s.cache_load_factor * static_cast<double>(table.rows)));
      return cache_hit_rate(table, cached);
    }
  }
  return 1;
}

double host_link_bytes(const EmbeddingPlacement& placement, std::size_t t, std::int64_t rank, std::int64_t batch,
                       std::int64_t element_bytes) {
  const double miss = 1 - tier_hit_rate(placement, t);
  if (miss <= 0) return 0;
  const TableSharding& s = placement.sharding()[t];
  const EmbeddingTable& table = placement.tables()[t];
  const std::int64_t shards =
      s.type == EmbeddingShardingType::column_wise ? static_cast<std::int64_t>(s.ranks.size()) : 1;
  const double lookups = placement.lookup_share(t, rank) * static_cast<double>(batch * table.lookups);
  return lookups * miss * static_cast<double>(table.dim / shards * element_bytes);
}

bool uses_host_memory(const EmbeddingPlacement& placement) {
  return std::any_of(placement.sharding().begin(), placement.sharding().end(),
                     [](const TableSharding& s) { return s.kernel != EmbeddingComputeKernel::fused; });
}

}  // namespace syncsim
