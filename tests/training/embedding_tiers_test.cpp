// Memory tiers of a sharded table (embedding_tiers.hpp): its GPU and host bytes under each compute kernel, the hit
// rate of its GPU cache, the bytes its misses move over the host link, all in closed form; and the refusals.
#include <catch2/catch.hpp>

#include "syncsim/core/input_error.hpp"
#include "syncsim/training/embedding_tiers.hpp"

using namespace syncsim;

namespace {

using Kernel = EmbeddingComputeKernel;
using Type = EmbeddingShardingType;

// fp32 weights, row-wise Adagrad: 4 bytes an element and 4 a row; a cache row holds the weights alone.
const MemoryRule kRule{.per_element = 4, .per_row = 4, .replicated_per_element = 12, .cached_per_element = 4};

EmbeddingTable uniform_table() {
  return {.name = "t", .rows = 1000, .dim = 16, .lookups = 3};
}

EmbeddingPlacement one(const EmbeddingTable& table, Type type, std::vector<std::int64_t> ranks, Kernel kernel,
                       double factor, std::int64_t world) {
  return EmbeddingPlacement({table}, {TableSharding(type, std::move(ranks), kernel, factor)}, world);
}

}  // namespace

TEST_CASE("a table's GPU and host bytes per compute kernel in closed form", "[training][embedding][tiers]") {
  // R = 1000 rows of d = 16 whole on rank 0 of 4: weights 1000 x 16 x 4 and Adagrad's 1000 x 4 = 68,000 bytes.
  const EmbeddingTable t = uniform_table();
  const EmbeddingPlacement fused = one(t, Type::table_wise, {0}, Kernel::fused, 0.2, 4);
  CHECK(fused.table_bytes(0, 0, kRule).value == 68'000);
  CHECK(fused.host_bytes(0, 0, kRule).value == 0);
  const EmbeddingPlacement uvm = one(t, Type::table_wise, {0}, Kernel::fused_uvm, 0.2, 4);
  CHECK(uvm.table_bytes(0, 0, kRule).value == 0);
  CHECK(uvm.host_bytes(0, 0, kRule).value == 68'000);
  // Caching 0.25: the table whole in host memory, 250 rows of 16 fp32 weights in the GPU's cache.
  const EmbeddingPlacement cached = one(t, Type::table_wise, {0}, Kernel::fused_uvm_caching, 0.25, 4);
  CHECK(cached.table_bytes(0, 0, kRule).value == 250 * 16 * 4);
  CHECK(cached.host_bytes(0, 0, kRule).value == 68'000);
  CHECK(cached.table_bytes(0, 1, kRule).value == 0);  // the other ranks hold nothing of it
  CHECK(cached.host_bytes(0, 1, kRule).value == 0);
  // Row-wise over 4: each rank 250 rows in host memory (17,000 bytes) and 0.2 x 250 = 50 cached (3,200 bytes).
  const EmbeddingPlacement rows = one(t, Type::row_wise, {}, Kernel::fused_uvm_caching, 0.2, 4);
  std::int64_t host = 0;
  for (std::int64_t r = 0; r < 4; ++r) {
    CHECK(rows.table_bytes(0, r, kRule).value == 50 * 16 * 4);
    CHECK(rows.host_bytes(0, r, kRule).value == 250 * (16 * 4 + 4));
    host += rows.host_bytes(0, r, kRule).value;
  }
  CHECK(host == 68'000);  // conservation: the shards' host bytes are the table's
  // Column-wise in 2 shards on ranks 1 and 2: each 1000 rows of 8 columns, its own Adagrad row state.
  const EmbeddingPlacement columns = one(t, Type::column_wise, {1, 2}, Kernel::fused_uvm, 0.2, 4);
  CHECK(columns.host_bytes(0, 1, kRule).value == 1000 * (8 * 4 + 4));
  CHECK(columns.rank_host_bytes(2, kRule).value == 1000 * (8 * 4 + 4));
}

TEST_CASE("a uniform table's hit rate is its cached share, a Zipf table's the mass of its head", "[training][tiers]") {
  const EmbeddingTable t = uniform_table();
  CHECK(tier_hit_rate(one(t, Type::table_wise, {0}, Kernel::fused_uvm_caching, 0.2, 4), 0) == Approx(0.2));
  CHECK(tier_hit_rate(one(t, Type::row_wise, {}, Kernel::fused_uvm_caching, 0.5, 4), 0) == Approx(0.5));
  CHECK(tier_hit_rate(one(t, Type::table_wise, {0}, Kernel::fused, 0.2, 4), 0) == 1);
  CHECK(tier_hit_rate(one(t, Type::table_wise, {0}, Kernel::fused_uvm, 0.2, 4), 0) == 0);
  // Zipf(1): the 200 hottest of 1000 rows serve H(200) / H(1000) of the lookups, far above 0.2.
  EmbeddingTable zipf = t;
  zipf.zipf = 1.0;
  double h200 = 0;
  double h1000 = 0;
  for (int i = 1; i <= 1000; ++i) (i <= 200 ? h200 : h1000) += 1.0 / i;
  h1000 += h200;
  CHECK(tier_hit_rate(one(zipf, Type::table_wise, {0}, Kernel::fused_uvm_caching, 0.2, 4), 0) ==
        Approx(h200 / h1000).epsilon(1e-6));
}

TEST_CASE("miss traffic per batch = lookups x (1 - hit rate) x row bytes", "[training][tiers]") {
  // Table-wise on rank 0 of W = 4, B = 32 samples per GPU, L = 3 ids each: the owner looks up 4 x 32 x 3 = 384
  // rows a pass; a uniform cache of 0.2 misses 0.8 of them, each 16 fp32 = 64 bytes.
  const EmbeddingTable t = uniform_table();
  const EmbeddingPlacement cached = one(t, Type::table_wise, {0}, Kernel::fused_uvm_caching, 0.2, 4);
  CHECK(host_link_bytes(cached, 0, 0, 32, 4) == Approx(384 * 0.8 * 64));
  CHECK(host_link_bytes(cached, 0, 1, 32, 4) == 0);  // rank 1 looks up nothing of it
  const EmbeddingPlacement uvm = one(t, Type::table_wise, {0}, Kernel::fused_uvm, 0.2, 4);
  CHECK(host_link_bytes(uvm, 0, 0, 32, 4) == Approx(384 * 64));
  // Row-wise: each rank looks up its block for all W x B samples, B x L of them on average, 0.5 missed.
  const EmbeddingPlacement rows = one(t, Type::row_wise, {}, Kernel::fused_uvm_caching, 0.5, 4);
  CHECK(host_link_bytes(rows, 0, 3, 32, 4) == Approx(32 * 3 * 0.5 * 64));
  // Column-wise in 2 shards: each shard's owner looks up W / k x B x L rows of d / k = 8 columns.
  const EmbeddingPlacement columns = one(t, Type::column_wise, {1, 2}, Kernel::fused_uvm, 0.2, 4);
  CHECK(host_link_bytes(columns, 0, 1, 32, 4) == Approx(2 * 32 * 3 * 8 * 4));
  CHECK(host_link_bytes(one(t, Type::table_wise, {0}, Kernel::fused, 0.2, 4), 0, 0, 32, 4) == 0);
}

TEST_CASE("host-memory kernels are refused where they cannot apply", "[training][tiers]") {
  const EmbeddingTable t = uniform_table();
  CHECK_THROWS_WITH(one(t, Type::data_parallel, {}, Kernel::fused_uvm, 0.2, 4),
                    Catch::Contains("data_parallel table is a dense parameter"));
  CHECK_THROWS_WITH(one(t, Type::table_wise, {0}, Kernel::fused_uvm_caching, 0, 4),
                    Catch::Contains("cache_load_factor 0 is not a share"));
  CHECK_THROWS_WITH(one(t, Type::table_wise, {0}, Kernel::fused_uvm_caching, 1.5, 4),
                    Catch::Contains("cache_load_factor 1.5"));
  CHECK(to_string(parse_embedding_compute_kernel("fused-uvm-caching")) == "fused_uvm_caching");
  CHECK_THROWS_WITH(parse_embedding_compute_kernel("uvm"), Catch::Contains("fused, fused_uvm, fused_uvm_caching"));
}

TEST_CASE("the planner step places a host-memory table by its cache, not its size", "[training][tiers]") {
  // Two tables of 68,000 bytes fused on 2 GPUs with room for 20,000 each: fused, neither fits whole (row-wise);
  // asked table-wise fused_uvm_caching at 0.25, each keeps 16,000 bytes of cache on its own GPU.
  const std::vector<EmbeddingTable> tables{uniform_table(), {.name = "u", .rows = 1000, .dim = 16}};
  const EmbeddingPlacement fused =
      plan_embedding_placement(tables, {std::nullopt, std::nullopt}, 2, kRule, Bytes{20'000});
  CHECK(fused.sharding()[0].type == Type::row_wise);
  const TableSharding asked(Type::table_wise, {-1}, Kernel::fused_uvm_caching, 0.25);
  const EmbeddingPlacement cached = plan_embedding_placement(tables, {asked, asked}, 2, kRule, Bytes{20'000});
  CHECK(cached.sharding()[0].kernel == Kernel::fused_uvm_caching);
  CHECK(cached.sharding()[0].ranks != cached.sharding()[1].ranks);  // balanced: one each
  CHECK(cached.rank_bytes(0, kRule).value == 16'000);
  CHECK(cached.rank_host_bytes(1, kRule).value == 68'000);
  CHECK(uses_host_memory(cached));
  CHECK_FALSE(uses_host_memory(fused));
}
