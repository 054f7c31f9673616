#include "syncsim/training/embedding_sharding.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <numeric>

#include "name_table.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

using training_detail::name_in;

constexpr std::array<std::pair<std::string_view, EmbeddingShardingType>, 4> kShardingNames = {{
    {"table_wise", EmbeddingShardingType::table_wise},
    {"row_wise", EmbeddingShardingType::row_wise},
    {"column_wise", EmbeddingShardingType::column_wise},
    {"data_parallel", EmbeddingShardingType::data_parallel},
}};
constexpr std::array<std::pair<std::string_view, EmbeddingComputeKernel>, 3> kKernelNames = {{
    {"fused", EmbeddingComputeKernel::fused},
    {"fused_uvm", EmbeddingComputeKernel::fused_uvm},
    {"fused_uvm_caching", EmbeddingComputeKernel::fused_uvm_caching},
}};
constexpr std::array<std::pair<std::string_view, EmbeddingOptimizer>, 4> kOptimizerNames = {{
    {"sgd", EmbeddingOptimizer::sgd},
    {"rowwise_adagrad", EmbeddingOptimizer::rowwise_adagrad},
    {"adagrad", EmbeddingOptimizer::adagrad},
    {"adam", EmbeddingOptimizer::adam},
}};
// TorchRec's KJT: int64 ids, int32 lengths.
constexpr std::int64_t kIdBytes = 8;
constexpr std::int64_t kLengthBytes = 4;
constexpr std::int64_t kFp32 = 4;

template <typename E, std::size_t N>
E parse_in(const std::array<std::pair<std::string_view, E>, N>& table, std::string_view text, const char* what) {
  std::string wanted;
  for (char c : text) wanted += c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::vector<std::string_view> names;
  for (const auto& [name, value] : table) {
    if (name == wanted) return value;
    names.push_back(name);
  }
  throw InputError(fmt::format("unknown {} '{}': expected one of {}", what, text, fmt::join(names, ", ")));
}

// Row-wise blocks as TorchRec cuts them: ceil(R / W) rows each, the last ranks holding the rest (or nothing).
std::int64_t row_block(std::int64_t rows, std::int64_t world, std::int64_t rank) {
  const std::int64_t block = (rows + world - 1) / world;
  return std::clamp<std::int64_t>(rows - rank * block, 0, block);
}

std::int64_t uniform_buffer(std::int64_t world, std::int64_t busiest) {
  return world < 2 ? 0 : busiest * world / (world - 1);
}

}  // namespace

std::string_view to_string(EmbeddingShardingType type) {
  return name_in(kShardingNames, type);
}

EmbeddingShardingType parse_embedding_sharding(std::string_view text) {
  return parse_in(kShardingNames, text, "embedding sharding");
}

std::string_view to_string(EmbeddingComputeKernel kernel) {
  return name_in(kKernelNames, kernel);
}

EmbeddingComputeKernel parse_embedding_compute_kernel(std::string_view text) {
  return parse_in(kKernelNames, text, "embedding compute kernel");
}

std::string_view to_string(EmbeddingOptimizer optimizer) {
  return name_in(kOptimizerNames, optimizer);
}

EmbeddingOptimizer parse_embedding_optimizer(std::string_view text) {
  return parse_in(kOptimizerNames, text, "embedding optimizer");
}

MemoryRule sharded_memory_rule(EmbeddingOptimizer optimizer, std::int64_t weight_bytes,
                               std::int64_t replicated_per_element) {
  MemoryRule rule{.per_element = weight_bytes,
                  .per_row = 0,
                  .replicated_per_element = replicated_per_element,
                  .cached_per_element = weight_bytes};
  if (optimizer == EmbeddingOptimizer::rowwise_adagrad) rule.per_row = kFp32;
  if (optimizer == EmbeddingOptimizer::adagrad) rule.per_element += kFp32;
  if (optimizer == EmbeddingOptimizer::adam) rule.per_element += 2 * kFp32;
  return rule;
}

EmbeddingPlacement::EmbeddingPlacement(const std::vector<EmbeddingTable>& tables, std::vector<TableSharding> sharding,
                                       std::int64_t world)
    : tables_(tables), sharding_(std::move(sharding)), world_(world) {
  if (world < 1) throw InputError(fmt::format("expected at least one GPU, got {}", world));
  if (sharding_.size() != tables_.size()) {
    throw InputError(fmt::format("{} tables but {} shardings", tables_.size(), sharding_.size()));
  }
  for (std::size_t t = 0; t < tables_.size(); ++t) {
    const TableSharding& s = sharding_[t];
    const std::string key = fmt::format("tables[{}]", t);
    for (std::int64_t rank : s.ranks) {
      if (rank < 0 || rank >= world) {
        throw InputError(fmt::format("table '{}': rank {} is not one of the {} GPUs", tables_[t].name, rank, world),
                         std::nullopt, key);
      }
    }
    const bool one = s.ranks.size() == 1;
    if (s.type == EmbeddingShardingType::table_wise && !one) {
      throw InputError(fmt::format("table '{}': table_wise needs exactly one rank", tables_[t].name), std::nullopt,
                       key);
    }
    const auto k = static_cast<std::int64_t>(s.ranks.size());
    if (s.type == EmbeddingShardingType::column_wise && (k < 1 || tables_[t].dim % k != 0)) {
      throw InputError(fmt::format("table '{}': {} column-wise shards do not divide its dimension {}", tables_[t].name,
                                   k, tables_[t].dim),
                       std::nullopt, key);
    }
    if (s.type == EmbeddingShardingType::data_parallel && s.kernel != EmbeddingComputeKernel::fused) {
      throw InputError(fmt::format("table '{}': a data_parallel table is a dense parameter in GPU memory: {} needs a "
                                   "sharded table (table_wise, row_wise or column_wise)",
                                   tables_[t].name, to_string(s.kernel)),
                       std::nullopt, key);
    }
    if (!(s.cache_load_factor > 0 && s.cache_load_factor <= 1)) {
      throw InputError(fmt::format("table '{}': cache_load_factor {} is not a share of its rows in (0, 1]",
                                   tables_[t].name, s.cache_load_factor),
                       std::nullopt, key);
    }
  }
}

std::int64_t EmbeddingPlacement::held_rows(std::size_t t, std::int64_t rank) const {
  const TableSharding& s = sharding_[t];
  switch (s.type) {
    case EmbeddingShardingType::table_wise:
    case EmbeddingShardingType::column_wise:
      return std::count(s.ranks.begin(), s.ranks.end(), rank) > 0 ? tables_[t].rows : 0;
    case EmbeddingShardingType::row_wise:
      return row_block(tables_[t].rows, world_, rank);
    case EmbeddingShardingType::data_parallel:
      return tables_[t].rows;
  }
  return 0;
}

std::int64_t EmbeddingPlacement::held_columns(std::size_t t, std::int64_t rank) const {
  const TableSharding& s = sharding_[t];
  if (s.type != EmbeddingShardingType::column_wise) return held_rows(t, rank) > 0 ? tables_[t].dim : 0;
  const auto k = static_cast<std::int64_t>(s.ranks.size());
  return std::count(s.ranks.begin(), s.ranks.end(), rank) * (tables_[t].dim / k);
}

namespace {

// A sharded table's bytes on a rank wherever they live: weights and the fused optimizer's state (per row of each
// column-wise shard held).
std::int64_t resident_bytes(const EmbeddingPlacement& p, std::size_t t, std::int64_t rank, const MemoryRule& rule) {
  const TableSharding& s = p.sharding()[t];
  const std::int64_t rows = p.held_rows(t, rank);
  const std::int64_t shards =
      s.type == EmbeddingShardingType::column_wise ? std::count(s.ranks.begin(), s.ranks.end(), rank) : 1;
  return rows * p.held_columns(t, rank) * rule.per_element + rows * shards * rule.per_row;
}

}  // namespace

Bytes EmbeddingPlacement::table_bytes(std::size_t t, std::int64_t rank, const MemoryRule& rule) const {
  const TableSharding& s = sharding_[t];
  if (s.type == EmbeddingShardingType::data_parallel) {
    return Bytes{tables_[t].rows * tables_[t].dim * rule.replicated_per_element};
  }
  switch (s.kernel) {
    case EmbeddingComputeKernel::fused:
      return Bytes{resident_bytes(*this, t, rank, rule)};
    case EmbeddingComputeKernel::fused_uvm:
      return Bytes{0};
    case EmbeddingComputeKernel::fused_uvm_caching: {
      const auto cached =
          static_cast<std::int64_t>(std::llround(s.cache_load_factor * static_cast<double>(held_rows(t, rank))));
      return Bytes{cached * held_columns(t, rank) * rule.cached_per_element};
    }
  }
  return Bytes{0};
}

Bytes EmbeddingPlacement::host_bytes(std::size_t t, std::int64_t rank, const MemoryRule& rule) const {
  const TableSharding& s = sharding_[t];
  if (s.type == EmbeddingShardingType::data_parallel || s.kernel == EmbeddingComputeKernel::fused) return Bytes{0};
  return Bytes{resident_bytes(*this, t, rank, rule)};
}

Bytes EmbeddingPlacement::rank_host_bytes(std::int64_t rank, const MemoryRule& rule) const {
  std::int64_t sum = 0;
  for (std::size_t t = 0; t < tables_.size(); ++t) sum += host_bytes(t, rank, rule).value;
  return Bytes{sum};
}

Bytes EmbeddingPlacement::rank_bytes(std::int64_t rank, const MemoryRule& rule) const {
  std::int64_t sum = 0;
  for (std::size_t t = 0; t < tables_.size(); ++t) sum += table_bytes(t, rank, rule).value;
  return Bytes{sum};
}

std::int64_t EmbeddingPlacement::fullest_rank(const MemoryRule& rule) const {
  std::int64_t best = 0;
  for (std::int64_t r = 1; r < world_; ++r) {
    if (rank_bytes(r, rule) > rank_bytes(best, rule)) best = r;
  }
  return best;
}

std::int64_t EmbeddingPlacement::replicated_elements() const {
  std::int64_t sum = 0;
  for (std::size_t t = 0; t < tables_.size(); ++t) {
    if (sharding_[t].type == EmbeddingShardingType::data_parallel) sum += tables_[t].rows * tables_[t].dim;
  }
  return sum;
}

std::int64_t EmbeddingPlacement::pooled_columns(std::int64_t rank) const {
  std::int64_t columns = 0;
  for (std::size_t t = 0; t < tables_.size(); ++t) {
    const TableSharding& s = sharding_[t];
    if (s.type != EmbeddingShardingType::table_wise && s.type != EmbeddingShardingType::column_wise) continue;
    const auto k = static_cast<std::int64_t>(s.ranks.size());
    columns += std::count(s.ranks.begin(), s.ranks.end(), rank) * (tables_[t].dim / k);
  }
  return columns;
}

Bytes EmbeddingPlacement::alltoall_sent(std::int64_t rank, std::int64_t batch, std::int64_t e) const {
  return Bytes{(world_ - 1) * batch * pooled_columns(rank) * e};
}

Bytes EmbeddingPlacement::alltoall_received(std::int64_t rank, std::int64_t batch, std::int64_t e) const {
  std::int64_t all = 0;
  for (std::int64_t r = 0; r < world_; ++r) all += pooled_columns(r);
  return Bytes{batch * (all - pooled_columns(rank)) * e};
}

Bytes EmbeddingPlacement::alltoall_buffer(std::int64_t batch, std::int64_t e) const {
  std::int64_t busiest = 0;
  for (std::int64_t r = 0; r < world_; ++r) {
    busiest = std::max({busiest, alltoall_sent(r, batch, e).value, alltoall_received(r, batch, e).value});
  }
  return Bytes{uniform_buffer(world_, busiest)};
}

Bytes EmbeddingPlacement::reduce_scatter_buffer(std::int64_t batch, std::int64_t e) const {
  std::int64_t dims = 0;
  for (std::size_t t = 0; t < tables_.size(); ++t) {
    if (sharding_[t].type == EmbeddingShardingType::row_wise) dims += tables_[t].dim;
  }
  return Bytes{world_ * batch * dims * e};
}

Bytes EmbeddingPlacement::input_bytes(std::int64_t rank, std::int64_t batch, bool received) const {
  std::int64_t bytes = 0;
  for (std::size_t t = 0; t < tables_.size(); ++t) {
    const TableSharding& s = sharding_[t];
    const std::int64_t ids = batch * tables_[t].lookups * kIdBytes;
    const std::int64_t lengths = batch * kLengthBytes;
    if (s.type == EmbeddingShardingType::row_wise) {
      bytes += ids * (world_ - 1) / world_ + lengths * (world_ - 1);  // the same both ways
    } else if (s.type != EmbeddingShardingType::data_parallel) {
      const auto held = std::count(s.ranks.begin(), s.ranks.end(), rank);
      bytes += received ? held * (world_ - 1) * (ids + lengths)
                        : (static_cast<std::int64_t>(s.ranks.size()) - held) * (ids + lengths);
    }
  }
  return Bytes{bytes};
}

Bytes EmbeddingPlacement::input_buffer(std::int64_t batch) const {
  std::int64_t busiest = 0;
  for (std::int64_t r = 0; r < world_; ++r) {
    busiest = std::max({busiest, input_sent(r, batch).value, input_received(r, batch).value});
  }
  return Bytes{uniform_buffer(world_, busiest)};
}

double EmbeddingPlacement::lookup_share(std::size_t t, std::int64_t rank) const {
  const TableSharding& s = sharding_[t];
  const auto w = static_cast<double>(world_);
  switch (s.type) {
    case EmbeddingShardingType::table_wise:
      return s.ranks[0] == rank ? w : 0;
    case EmbeddingShardingType::column_wise:
      return static_cast<double>(std::count(s.ranks.begin(), s.ranks.end(), rank)) * w /
             static_cast<double>(s.ranks.size());
    case EmbeddingShardingType::row_wise:
    case EmbeddingShardingType::data_parallel:
      return 1;
  }
  return 0;
}

}  // namespace syncsim
