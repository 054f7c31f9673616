#pragma once
// EmbeddingSharding: where a recommendation model's embedding tables live on W GPUs, TorchRec's way
// (torchrec/distributed/types.py ShardingType; docs/recommendation.md), and what each placement costs per GPU.
//
// Sharding types of a table of R rows of d, for a per-GPU batch B, element bytes e (the activation precision):
//
//   table_wise     the whole table on one rank. Forward, that rank pools the lookups of all W x B samples and the
//                  all-to-all sends each other rank its B x d (sent (W-1)·B·d·e by the owner, B·d·e received by
//                  every other rank); backward, the same bytes of gradients back
//   column_wise    k shards of R x d/k, each table-wise on its own rank: the all-to-alls move d/k per shard
//   row_wise       rows in W blocks of ceil(R/W) (the last holds the rest): every rank pools partial sums of its rows
//                  for all W x B samples, and a reduce-scatter of the W·B·d partial sums leaves each rank its B x d
//                  (sent (W-1)·B·d·e per GPU); backward, an all-gather of the B x d gradients, the same bytes
//   data_parallel  the table on every rank, looked up locally, its gradient all-reduced with the dense part's
//
// The input all-to-all (TorchRec's KJT distribution) sends each id (8 bytes, int64) and each sample's length (4
// bytes, int32) to the ranks that hold its table: table- and column-wise to the owner(s), row-wise to every rank
// (the ids split among them, the lengths to each).
//
// Memory on a rank (MemoryRule): a sharded table keeps its weights and the fused optimizer's state (TorchRec's
// FBGEMM kernels apply the update in backward, so no gradient tensor exists): per_element bytes per element held,
// per_row per row held (row-wise Adagrad's one FP32 per row). A data-parallel table is a dense parameter:
// replicated_per_element (weights, gradient and the dense optimizer's state) per element, on every rank.
//
// Memory tiers (TorchRec's EmbeddingComputeKernel; embedding_tiers.hpp has the closed forms): a sharded table's
// shard is `fused` (in GPU memory, the above), `fused_uvm` (in host memory, every lookup over the GPU's host link)
// or `fused_uvm_caching` (in host memory, with a GPU cache of its cache_load_factor x held rows, the hottest).
// table_bytes counts the GPU's bytes, host_bytes the host's.
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "syncsim/compute/recommendation_model.hpp"
#include "syncsim/core/units.hpp"

namespace syncsim {

enum class EmbeddingShardingType { table_wise, row_wise, column_wise, data_parallel };

std::string_view to_string(EmbeddingShardingType type);
// Throws InputError listing the names.
EmbeddingShardingType parse_embedding_sharding(std::string_view text);

// Where a shard's rows live (TorchRec's EmbeddingComputeKernel FUSED, FUSED_UVM, FUSED_UVM_CACHING).
enum class EmbeddingComputeKernel { fused, fused_uvm, fused_uvm_caching };
std::string_view to_string(EmbeddingComputeKernel kernel);
EmbeddingComputeKernel parse_embedding_compute_kernel(std::string_view text);  // throws InputError listing the names

// TorchRec's planner caches this share of a table's rows under FUSED_UVM_CACHING when the constraints give none
// (torchrec/distributed/planner/constants.py, DEFAULT_CACHING_RATIO / UVM_CACHING_RATIO = 0.2).
inline constexpr double kDefaultCacheLoadFactor = 0.2;

struct TableSharding {
  // A constructor rather than an aggregate, so that {type, ranks} stays complete as the tiers add their fields.
  TableSharding(EmbeddingShardingType type_ = EmbeddingShardingType::table_wise, std::vector<std::int64_t> ranks_ = {},
                EmbeddingComputeKernel kernel_ = EmbeddingComputeKernel::fused,
                double cache_load_factor_ = kDefaultCacheLoadFactor)
      : type(type_), ranks(std::move(ranks_)), kernel(kernel_), cache_load_factor(cache_load_factor_) {}

  EmbeddingShardingType type = EmbeddingShardingType::table_wise;
  // table_wise: the one rank; column_wise: one rank per shard (k = ranks.size() shards of dim / k columns);
  // row_wise and data_parallel: empty (every rank).
  std::vector<std::int64_t> ranks;
  EmbeddingComputeKernel kernel = EmbeddingComputeKernel::fused;
  double cache_load_factor = kDefaultCacheLoadFactor;  // fused_uvm_caching: the cached share of each shard's rows
};

struct MemoryRule {
  std::int64_t per_element = 4;              // sharded: weight (+ per-element optimizer state)
  std::int64_t per_row = 4;                  // sharded: per-row optimizer state (row-wise Adagrad: 1 FP32)
  std::int64_t replicated_per_element = 12;  // data-parallel: weight + gradient + dense optimizer state
  std::int64_t cached_per_element = 4;       // a GPU cache's row of a host-memory table: the weight alone
};

// The embedding optimizer TorchRec fuses into backward, which decides MemoryRule's sharded bytes: sgd (none),
// rowwise_adagrad (one FP32 per row; TorchRec's DLRM example with --adagrad, which MLPerf's DLRM-DCNv2 runs),
// adagrad (one FP32 per element), adam (two per element).
enum class EmbeddingOptimizer { sgd, rowwise_adagrad, adagrad, adam };
std::string_view to_string(EmbeddingOptimizer optimizer);
EmbeddingOptimizer parse_embedding_optimizer(std::string_view text);  // throws InputError listing the names
// Sharded bytes for weights of `weight_bytes` each (the replicated term is the caller's: the dense rule).
MemoryRule sharded_memory_rule(EmbeddingOptimizer optimizer, std::int64_t weight_bytes,
                               std::int64_t replicated_per_element);

class EmbeddingPlacement {
 public:
  // Throws InputError (key "tables[i]") for a placement that does not match the tables: a rank outside [0, world),
  // a table-wise table without exactly one rank, a column-wise one whose shard count does not divide its dimension.
  EmbeddingPlacement(const std::vector<EmbeddingTable>& tables, std::vector<TableSharding> sharding,
                     std::int64_t world);

  std::int64_t world() const { return world_; }
  const std::vector<EmbeddingTable>& tables() const { return tables_; }
  const std::vector<TableSharding>& sharding() const { return sharding_; }

  // Bytes table `t` keeps in `rank`'s GPU memory under `rule` (a host-memory shard: its cache alone).
  Bytes table_bytes(std::size_t t, std::int64_t rank, const MemoryRule& rule) const;
  // Bytes table `t` keeps in `rank`'s host memory: a fused_uvm or fused_uvm_caching shard whole, else nothing.
  Bytes host_bytes(std::size_t t, std::int64_t rank, const MemoryRule& rule) const;
  // Bytes all tables keep on `rank` (GPU; host); and the fullest rank (GPU).
  Bytes rank_bytes(std::int64_t rank, const MemoryRule& rule) const;
  Bytes rank_host_bytes(std::int64_t rank, const MemoryRule& rule) const;
  std::int64_t fullest_rank(const MemoryRule& rule) const;
  // Rows and columns of table `t` that `rank` holds (every shard of it there); zero where it holds none.
  std::int64_t held_rows(std::size_t t, std::int64_t rank) const;
  std::int64_t held_columns(std::size_t t, std::int64_t rank) const;
  // Elements of the data-parallel tables (their gradients join the dense buckets).
  std::int64_t replicated_elements() const;

  // Pooled output columns rank `rank` produces for every sample of the job (table- and column-wise shards held).
  std::int64_t pooled_columns(std::int64_t rank) const;
  // Forward pooled-embedding all-to-all, per GPU, batch B per GPU, e bytes an element (the backward moves the same).
  Bytes alltoall_sent(std::int64_t rank, std::int64_t batch, std::int64_t element_bytes) const;
  Bytes alltoall_received(std::int64_t rank, std::int64_t batch, std::int64_t element_bytes) const;
  // The uniform all-to-all buffer per rank whose per-peer share is the busiest rank's: W / (W - 1) x the largest
  // sent or received bytes (an alltoallv is as slow as its busiest rank); zero without table- or column-wise tables.
  Bytes alltoall_buffer(std::int64_t batch, std::int64_t element_bytes) const;
  // Row-wise: the reduce-scatter's whole buffer, W·B·(sum of row-wise dims)·e (each GPU sends (W-1)/W of it).
  Bytes reduce_scatter_buffer(std::int64_t batch, std::int64_t element_bytes) const;
  // Input ids and lengths, per GPU (see above); the uniform buffer as alltoall_buffer.
  Bytes input_sent(std::int64_t rank, std::int64_t batch) const { return input_bytes(rank, batch, false); }
  Bytes input_received(std::int64_t rank, std::int64_t batch) const { return input_bytes(rank, batch, true); }
  Bytes input_buffer(std::int64_t batch) const;
  // Share of the job's lookups of table `t` that `rank` performs (W for a table-wise owner, 1 row-wise and data
  // parallel, W / k per column-wise shard: in units of one GPU's batch).
  double lookup_share(std::size_t t, std::int64_t rank) const;

 private:
  Bytes input_bytes(std::int64_t rank, std::int64_t batch, bool received) const;

  std::vector<EmbeddingTable> tables_;
  std::vector<TableSharding> sharding_;
  std::int64_t world_ = 1;
};

// The planner step (docs/recommendation.md): each table the `given` placement leaves open (nullopt) is placed
// greedily, largest first: table-wise on the rank with the fewest bytes so far (ties: the fewest pooled columns,
// then the lowest rank) when it fits within `budget` there, otherwise row-wise over all ranks. A given sharding whose
// ranks are -1 (left open) is placed the same way: table-wise on the emptiest rank, column-wise shards on the k
// emptiest. The tables fully given are placed first.
EmbeddingPlacement plan_embedding_placement(const std::vector<EmbeddingTable>& tables,
                                            const std::vector<std::optional<TableSharding>>& given, std::int64_t world,
                                            const MemoryRule& rule, Bytes budget);

}  // namespace syncsim
