#include "recommendation_tiers.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>
#include <vector>

#include "syncsim/training/embedding_tiers.hpp"

namespace syncsim::run {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr std::size_t kNamedTables = 5;  // an over-full GPU's tables its refusal names

std::string gib(Bytes bytes) {
  return fmt::format("{:.2f} GiB", static_cast<double>(bytes.value) / kGiB);
}

// Where a table's request was written: its own key, or the default every other table takes.
const Located<ShardingRequest>& request_at(const Scenario& s, const std::string& table) {
  const EmbeddingShardingConfig& c = s.model.recommendation.sharding;
  const auto own = std::find_if(c.tables.begin(), c.tables.end(), [&](const auto& e) { return e.first == table; });
  return own != c.tables.end() ? own->second : c.all;
}

// The first table in host memory (the one an error names when the hardware has no figure for the tier).
std::size_t first_host_table(const EmbeddingPlacement& placement) {
  std::size_t t = 0;
  while (t < placement.sharding().size() && placement.sharding()[t].kernel == EmbeddingComputeKernel::fused) ++t;
  return t;
}

// The rank whose host share the tables fill most (the lowest on ties).
std::int64_t fullest_host_rank(const EmbeddingPlacement& placement, const MemoryRule& rule) {
  std::int64_t fullest = 0;
  for (std::int64_t r = 1; r < placement.world(); ++r) {
    if (placement.rank_host_bytes(r, rule) > placement.rank_host_bytes(fullest, rule)) fullest = r;
  }
  return fullest;
}

}  // namespace

std::optional<Bytes> host_memory_per_gpu(const GpuSpec& gpu) {
  if (!gpu.node_host_memory) return std::nullopt;
  return Bytes{gpu.node_host_memory->value / std::max(1, gpu.nvlink_domain_gpus.value_or(1))};
}

Bandwidth host_link(const ResolvedScenario& context, const EmbeddingPlacement& placement) {
  if (context.gpu().node_pcie_bandwidth) return *context.gpu().node_pcie_bandwidth;
  const std::size_t t = first_host_table(placement);
  const std::string& name = placement.tables()[t].name;
  throw request_at(context.scenario(), name)
      .error(fmt::format("table '{}' is {}, but {} has no host link in the catalog (no reference node's PCIe): keep "
                         "it fused in GPU memory",
                         name, to_string(placement.sharding()[t].kernel), context.gpu().name));
}

void check_host_memory(const ResolvedScenario& context, const EmbeddingPlacement& placement, const MemoryRule& rule) {
  if (!uses_host_memory(placement)) return;
  const std::optional<Bytes> share = host_memory_per_gpu(context.gpu());
  if (!share) {
    const std::string& name = placement.tables()[first_host_table(placement)].name;
    throw request_at(context.scenario(), name)
        .error(fmt::format("table '{}' is in host memory, but {} has no reference node's host memory in the "
                           "catalog: keep it fused in GPU memory",
                           name, context.gpu().name));
  }
  (void)host_link(context, placement);
  const std::int64_t fullest = fullest_host_rank(placement, rule);
  const Bytes held = placement.rank_host_bytes(fullest, rule);
  if (held <= *share) return;
  // The tables there, largest first: the first few by name, the rest counted.
  std::vector<std::size_t> order;
  for (std::size_t t = 0; t < placement.tables().size(); ++t) {
    if (placement.host_bytes(t, fullest, rule).value > 0) order.push_back(t);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return placement.host_bytes(a, fullest, rule) > placement.host_bytes(b, fullest, rule);
  });
  std::vector<std::string> tables;
  for (std::size_t i = 0; i < std::min<std::size_t>(order.size(), kNamedTables); ++i) {
    tables.push_back(
        fmt::format("{} {}", placement.tables()[order[i]].name, gib(placement.host_bytes(order[i], fullest, rule))));
  }
  if (order.size() > kNamedTables) tables.push_back(fmt::format("{} more", order.size() - kNamedTables));
  throw request_at(context.scenario(), placement.tables()[order.front()].name)
      .error(fmt::format("GPU {}'s tables in host memory take {} ({}), over its {} share of the node's host memory "
                         "({} on {}'s reference node over {} GPUs)",
                         fullest, gib(held), fmt::join(tables, ", "), gib(*share), gib(*context.gpu().node_host_memory),
                         context.gpu().name, context.gpu().nvlink_domain_gpus.value_or(1)));
}

void add_host_memory(RecommendationMemory& m, const ResolvedScenario& context, const EmbeddingPlacement& placement,
                     const MemoryRule& rule) {
  m.host_capacity = host_memory_per_gpu(context.gpu());
  for (std::size_t t = 0; t < placement.tables().size() && t < m.tables.size(); ++t) {
    Bytes largest{0};
    for (std::int64_t r = 0; r < placement.world(); ++r) largest = std::max(largest, placement.host_bytes(t, r, rule));
    m.tables[t].host_largest = largest;
    m.tables[t].hit_rate = tier_hit_rate(placement, t);
  }
  m.fullest_host_rank = fullest_host_rank(placement, rule);
  m.host_on_fullest = placement.rank_host_bytes(m.fullest_host_rank, rule);
}

}  // namespace syncsim::run
