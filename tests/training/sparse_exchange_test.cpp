// The sparse pull and push of embedding rows on parameter servers (sparse_exchange.hpp) in closed form: the system
// (a table, a batch, the element size) and the bytes expected first.
#include <catch2/catch.hpp>

#include <cmath>

#include "syncsim/training/sparse_exchange.hpp"

using namespace syncsim;

TEST_CASE("sparse exchange: a batch of 64 lookups touching 32 distinct rows", "[training][sparse]") {
  // 32 samples x 2 ids = 64 lookups; a touched share of 0.5 leaves U = 32 distinct rows. Each row on the wire is
  // its 8-byte id and 16 fp32 elements: 72 bytes. Push and pull: 32 x 72 = 2,304 bytes each.
  const EmbeddingTable table{.name = "t", .rows = 1'000'000, .dim = 16, .lookups = 2, .touched_share = 0.5};
  const SparseExchange x = sparse_exchange(table, 32, 4);
  CHECK(x.lookups == 64);
  CHECK(x.unique_rows == Approx(32));
  CHECK(x.push_bytes == Approx(2304));
  CHECK(x.pull_bytes == Approx(2304));
}

TEST_CASE("sparse exchange: uniform ids deduplicate as R (1 - (1 - 1/R)^n)", "[training][sparse]") {
  // 1,000 rows, 256 samples x 4 ids = 1,024 lookups: U = 1000 (1 - 0.999^1024) = 641.2 distinct rows; bf16 rows of
  // 128: 8 + 256 = 264 bytes each way per row.
  const EmbeddingTable table{.name = "t", .rows = 1000, .dim = 128, .lookups = 4};
  const SparseExchange x = sparse_exchange(table, 256, 2);
  const double unique = 1000 * (1 - std::pow(0.999, 1024));
  CHECK(unique == Approx(641.2).epsilon(1e-3));
  CHECK(x.unique_rows == Approx(unique));
  CHECK(x.push_bytes == Approx(unique * 264));
  CHECK(x.pull_bytes == x.push_bytes);
  // Deduplication never sends more rows than lookups nor than the table has.
  CHECK(x.unique_rows <= 1000);
  CHECK(x.unique_rows <= x.lookups);
}

TEST_CASE("sparse update: the embedding optimizer's step traffic per row", "[training][sparse]") {
  // Row-wise Adagrad in fp32, d = 128: per element the weight read and written (2 x 4) and the gradient read (4);
  // per row its one FP32 state read and written (2 x 4): 128 x 12 + 8 = 1,544 bytes.
  const MemoryRule rowwise = sharded_memory_rule(EmbeddingOptimizer::rowwise_adagrad, 4, 12);
  CHECK(sparse_update_bytes(1, 128, rowwise, 4) == Approx(1544));
  CHECK(sparse_update_bytes(1000, 128, rowwise, 4) == Approx(1'544'000));
  // Adam keeps two FP32 moments per element: per element 2 x (4 + 8) + 4 = 28, as optimizer.hpp's adam step.
  const MemoryRule adam = sharded_memory_rule(EmbeddingOptimizer::adam, 4, 12);
  CHECK(sparse_update_bytes(1, 1, adam, 4) == Approx(28));
}
