// The planner step of embedding_sharding.hpp: largest table first, each on the emptiest rank (memory, then pooled
// columns, then rank), row-wise when no rank has room.
#include <algorithm>
#include <numeric>

#include "syncsim/training/embedding_sharding.hpp"

namespace syncsim {

namespace {

struct RankLoad {
  std::int64_t bytes = 0;
  std::int64_t columns = 0;
};

// Ranks ordered emptiest first: by bytes, then pooled columns, then index.
std::vector<std::int64_t> emptiest(const std::vector<RankLoad>& load) {
  std::vector<std::int64_t> order(load.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    const RankLoad& x = load[static_cast<std::size_t>(a)];
    const RankLoad& y = load[static_cast<std::size_t>(b)];
    return x.bytes != y.bytes ? x.bytes < y.bytes : x.columns < y.columns;
  });
  return order;
}

}  // namespace

EmbeddingPlacement plan_embedding_placement(const std::vector<EmbeddingTable>& tables,
                                            const std::vector<std::optional<TableSharding>>& given, std::int64_t world,
                                            const MemoryRule& rule, Bytes budget) {
  std::vector<TableSharding> sharding(tables.size());
  std::vector<RankLoad> load(static_cast<std::size_t>(std::max<std::int64_t>(world, 1)));
  std::vector<std::size_t> open;
  // What the scenario fixes is placed first, so that the open tables fill around it.
  for (std::size_t t = 0; t < tables.size(); ++t) {
    const std::optional<TableSharding>& g = t < given.size() ? given[t] : std::nullopt;
    const bool fixed =
        g &&
        (g->type == EmbeddingShardingType::row_wise || g->type == EmbeddingShardingType::data_parallel ||
         (!g->ranks.empty() && std::all_of(g->ranks.begin(), g->ranks.end(), [](std::int64_t r) { return r >= 0; })));
    if (!fixed) {
      open.push_back(t);
      continue;
    }
    sharding[t] = *given[t];
  }
  const auto add = [&](std::size_t t) {
    const EmbeddingPlacement one({tables[t]}, {sharding[t]}, world);
    for (std::int64_t r = 0; r < world; ++r) {
      load[static_cast<std::size_t>(r)].bytes += one.table_bytes(0, r, rule).value;
      load[static_cast<std::size_t>(r)].columns += one.pooled_columns(r);
    }
  };
  for (std::size_t t = 0; t < tables.size(); ++t) {
    if (std::find(open.begin(), open.end(), t) == open.end()) add(t);
  }
  std::stable_sort(open.begin(), open.end(), [&](std::size_t a, std::size_t b) {
    return tables[a].rows * tables[a].dim > tables[b].rows * tables[b].dim;
  });
  for (std::size_t t : open) {
    const EmbeddingTable& table = tables[t];
    const std::vector<std::int64_t> order = emptiest(load);
    const std::optional<TableSharding>& asked = t < given.size() ? given[t] : std::nullopt;
    if (asked && asked->type == EmbeddingShardingType::column_wise) {
      // Shards without ranks (-1): the k emptiest ranks, k the count the scenario gave.
      sharding[t] = *asked;
      for (std::size_t i = 0; i < sharding[t].ranks.size(); ++i) sharding[t].ranks[i] = order[i % order.size()];
    } else {
      const std::int64_t best = order.front();
      // The table whole on `best`, in the kernel the scenario asks (a host-memory table keeps its cache there).
      TableSharding whole = asked ? *asked : TableSharding{};
      whole.type = EmbeddingShardingType::table_wise;
      whole.ranks = {best};
      const Bytes bytes = EmbeddingPlacement({table}, {whole}, world).table_bytes(0, best, rule);
      const bool fits = load[static_cast<std::size_t>(best)].bytes + bytes.value <= budget.value;
      sharding[t] = fits || (asked && asked->type == EmbeddingShardingType::table_wise)
                        ? whole
                        : TableSharding{EmbeddingShardingType::row_wise, {}};
    }
    add(t);
  }
  return EmbeddingPlacement(tables, std::move(sharding), world);
}

}  // namespace syncsim
