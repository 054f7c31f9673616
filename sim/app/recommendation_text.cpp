#include "recommendation_text.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>

#include "memory_text.hpp"

namespace syncsim::app {

namespace {

std::string ranks_text(const TableSharding& s, std::int64_t gpus) {
  if (s.ranks.empty()) return fmt::format("all {}", gpus);
  return fmt::format("{}", fmt::join(s.ranks, ","));
}

void print_server_tables(std::ostream& o, const run::ServerTables& s) {
  Bytes total{0};
  for (const run::ServerTable& t : s.tables) total += t.on_servers;
  fmt::print(o,
             "embeddings       {} tables on {} parameter server(s) ({} hosts): {} of weights and optimizer state, {} "
             "per server\n",
             s.tables.size(), s.count, s.host, gib_text(total), gib_text(s.per_server));
  fmt::print(o, "each GPU         the rows its batch pulls and their gradients {}\n", gib_text(s.rows_on_gpu));
  fmt::print(o, "  {:<16} {:>16} {:>14}\n", "table", "rows pulled/GPU", "on servers");
  for (const run::ServerTable& t : s.tables) {
    fmt::print(o, "  {:<16} {:>16.0f} {:>14}\n", t.name, t.rows_pulled, gib_text(t.on_servers));
  }
}

// With a table in host memory: each table's tier, its bytes in GPU memory and in host memory (on the GPU holding
// most of it) and the share of lookups GPU memory serves; then the fullest GPU's host share.
void print_tier_lines(std::ostream& o, const run::RecommendationMemory& m, std::int64_t gpus) {
  fmt::print(o, "  {:<16} {:<14} {:>10} {:<18} {:>14} {:>14} {:>9}\n", "table", "sharding", "ranks", "tier",
             "GPU max/GPU", "host max/GPU", "hit rate");
  for (const run::TableMemory& t : m.tables) {
    const std::string tier = t.sharding.kernel == EmbeddingComputeKernel::fused_uvm_caching
                                 ? fmt::format("{} {:.2g}", to_string(t.sharding.kernel), t.sharding.cache_load_factor)
                                 : std::string(to_string(t.sharding.kernel));
    fmt::print(o, "  {:<16} {:<14} {:>10} {:<18} {:>14} {:>14} {:>8.1f}%\n", t.name, to_string(t.sharding.type),
               ranks_text(t.sharding, gpus), tier, gib_text(t.largest), gib_text(t.host_largest), 100 * t.hit_rate);
  }
  fmt::print(o, "host memory      GPU {}'s tables {} of its {} share of the node's host memory\n", m.fullest_host_rank,
             gib_text(m.host_on_fullest), m.host_capacity ? gib_text(*m.host_capacity) : std::string("(unknown)"));
}

}  // namespace

void print_embedding_lines(std::ostream& o, const run::RecommendationMemory& m, std::int64_t gpus) {
  if (m.servers) {
    print_server_tables(o, *m.servers);
    return;
  }
  Bytes replicated{0};
  for (const run::TableMemory& t : m.tables) replicated += t.replicated;
  fmt::print(o, "embeddings       {} tables, {} ({}); every table replicated would take {} per GPU\n", m.tables.size(),
             m.planned ? "placed by the planner (largest first, emptiest GPU; row-wise when none has room)"
                       : "placed as the scenario gives",
             fmt::format("fullest GPU {}", m.fullest_rank), gib_text(replicated));
  fmt::print(o, "fullest GPU      tables {}  pooled embeddings and gradients {}  dense part {}\n",
             gib_text(m.embeddings), gib_text(m.pooled), gib_text(m.dense_total));
  const bool tiers = std::any_of(m.tables.begin(), m.tables.end(), [](const run::TableMemory& t) {
    return t.sharding.kernel != EmbeddingComputeKernel::fused;
  });
  if (tiers) {
    print_tier_lines(o, m, gpus);
    return;
  }
  fmt::print(o, "  {:<16} {:<14} {:>10} {:>14} {:>14} {:>14}\n", "table", "sharding", "ranks", "on fullest",
             "largest/GPU", "replicated");
  for (const run::TableMemory& t : m.tables) {
    fmt::print(o, "  {:<16} {:<14} {:>10} {:>14} {:>14} {:>14}\n", t.name, to_string(t.sharding.type),
               ranks_text(t.sharding, gpus), gib_text(t.on_fullest), gib_text(t.largest), gib_text(t.replicated));
  }
}

void print_table_staleness(std::ostream& out, const std::vector<TableStaleness>& tables) {
  std::vector<const TableStaleness*> order;
  for (const TableStaleness& t : tables) order.push_back(&t);
  std::stable_sort(order.begin(), order.end(), [](const TableStaleness* a, const TableStaleness* b) {
    return a->missed_updates > b->missed_updates;
  });
  std::vector<std::string> most;
  for (std::size_t i = 0; i < std::min<std::size_t>(3, order.size()); ++i) {
    most.push_back(fmt::format("{} {:.3g}", order[i]->table, order[i]->missed_updates));
  }
  fmt::print(out, "table staleness  {} tables {} iteration(s) stale; updates a read row misses: {}\n", tables.size(),
             tables.front().iterations, fmt::join(most, ", "));
}

}  // namespace syncsim::app
