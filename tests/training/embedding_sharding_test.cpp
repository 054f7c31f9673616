// Embedding placement: the all-to-all bytes per GPU and a table's memory per GPU in closed form for each sharding
// type, the planner step's rule, and the placement's errors.
#include <catch2/catch.hpp>

#include "syncsim/core/input_error.hpp"
#include "syncsim/training/embedding_sharding.hpp"

using namespace syncsim;

namespace {

using Type = EmbeddingShardingType;

std::vector<EmbeddingTable> three_tables() {
  return {{.name = "t0", .rows = 1000, .dim = 16, .lookups = 3},
          {.name = "t1", .rows = 2000, .dim = 32, .lookups = 1},
          {.name = "t2", .rows = 500, .dim = 16, .lookups = 2}};
}

}  // namespace

TEST_CASE("table-wise all-to-all bytes per GPU in closed form", "[training][embedding]") {
  // W = 4 GPUs, B = 8 samples each, 2-byte elements; t0 on rank 0, t1 and t2 on rank 1: rank 0 pools 16 columns
  // for all 32 samples, rank 1 48.
  const EmbeddingPlacement p(three_tables(),
                             {{Type::table_wise, {0}}, {Type::table_wise, {1}}, {Type::table_wise, {1}}}, 4);
  CHECK(p.pooled_columns(0) == 16);
  CHECK(p.pooled_columns(1) == 48);
  CHECK(p.alltoall_sent(0, 8, 2).value == 3 * 8 * 16 * 2);  // (W-1)·B·d·e to the three others
  CHECK(p.alltoall_sent(1, 8, 2).value == 3 * 8 * 48 * 2);
  CHECK(p.alltoall_sent(2, 8, 2).value == 0);
  CHECK(p.alltoall_received(0, 8, 2).value == 8 * 48 * 2);  // B·d·e of every table held elsewhere
  CHECK(p.alltoall_received(2, 8, 2).value == 8 * 64 * 2);
  // Conservation: what the ranks send is what they receive.
  std::int64_t sent = 0;
  std::int64_t received = 0;
  for (std::int64_t r = 0; r < 4; ++r) {
    sent += p.alltoall_sent(r, 8, 2).value;
    received += p.alltoall_received(r, 8, 2).value;
  }
  CHECK(sent == received);
  // The uniform buffer whose per-peer share is the busiest rank's: 4/3 x 2,304.
  CHECK(p.alltoall_buffer(8, 2).value == 3072);
  CHECK(p.reduce_scatter_buffer(8, 2).value == 0);
  // Input ids (8 bytes) and lengths (4 bytes) to the owner: rank 2 sends B·(3·8 + 4) + B·(8 + 4) + B·(2·8 + 4).
  CHECK(p.input_sent(2, 8).value == 8 * (28 + 12 + 20));
  CHECK(p.input_received(0, 8).value == 3 * 8 * 28);
}

TEST_CASE("row-wise sharding reduce-scatters the pooled partial sums", "[training][embedding]") {
  const EmbeddingPlacement p(three_tables(), {{Type::row_wise, {}}, {Type::row_wise, {}}, {Type::data_parallel, {}}},
                             4);
  // The W·B·d·e partial sums of the row-wise tables (16 + 32 columns); each GPU sends (W-1)/W of them.
  CHECK(p.reduce_scatter_buffer(8, 2).value == 4 * 8 * 48 * 2);
  CHECK(p.alltoall_buffer(8, 2).value == 0);
  CHECK(p.replicated_elements() == 500 * 16);
  // Ids split over the W row blocks, lengths to every other rank; a data-parallel table sends nothing.
  CHECK(p.input_sent(0, 8).value == 8 * 3 * 8 * 3 / 4 + 8 * 4 * 3 + 8 * 1 * 8 * 3 / 4 + 8 * 4 * 3);
  CHECK(p.lookup_share(0, 2) == 1);
}

TEST_CASE("a table's memory per GPU for each sharding type", "[training][embedding]") {
  // 1,000 rows of 16, 4-byte weights and row-wise Adagrad (4 bytes a row); replicated: weight, gradient, Adam's 8.
  const std::vector<EmbeddingTable> one{{.name = "t", .rows = 1000, .dim = 16}};
  const MemoryRule rule = sharded_memory_rule(EmbeddingOptimizer::rowwise_adagrad, 4, 16);
  CHECK(rule.per_element == 4);
  CHECK(rule.per_row == 4);
  const EmbeddingPlacement table_wise(one, {{Type::table_wise, {2}}}, 3);
  CHECK(table_wise.table_bytes(0, 2, rule).value == 1000 * 16 * 4 + 1000 * 4);
  CHECK(table_wise.table_bytes(0, 0, rule).value == 0);
  const EmbeddingPlacement row_wise(one, {{Type::row_wise, {}}}, 3);
  CHECK(row_wise.table_bytes(0, 0, rule).value == 334 * (16 * 4 + 4));  // ceil(1000 / 3) rows
  CHECK(row_wise.table_bytes(0, 2, rule).value == 332 * (16 * 4 + 4));  // the rest
  const EmbeddingPlacement column_wise(one, {{Type::column_wise, {0, 1}}}, 3);
  CHECK(column_wise.table_bytes(0, 1, rule).value == 1000 * 8 * 4 + 1000 * 4);
  CHECK(column_wise.table_bytes(0, 2, rule).value == 0);
  CHECK(column_wise.lookup_share(0, 0) == Approx(1.5));  // W / k of one GPU's batch
  const EmbeddingPlacement replicated(one, {{Type::data_parallel, {}}}, 3);
  for (std::int64_t r = 0; r < 3; ++r) CHECK(replicated.table_bytes(0, r, rule).value == 1000 * 16 * 16);
  // Adam fused into backward keeps two FP32 moments per element.
  CHECK(sharded_memory_rule(EmbeddingOptimizer::adam, 4, 16).per_element == 12);
}

TEST_CASE("the planner places the largest tables first on the emptiest GPU", "[training][embedding]") {
  const MemoryRule rule{.per_element = 4, .per_row = 0, .replicated_per_element = 12};
  std::vector<EmbeddingTable> tables;
  for (int i = 0; i < 4; ++i) {
    // Appended, not "t" + to_string(i): that operator+ trips GCC 12's -Wstringop-overflow false positive.
    std::string name = "t";
    name += std::to_string(i);
    tables.push_back({.name = name, .rows = 100 * (i + 1), .dim = 8});
  }
  const EmbeddingPlacement p = plan_embedding_placement(tables, {}, 2, rule, Bytes{1'000'000});
  // By bytes, largest first: t3 (12,800 B) on 0, t2 (9,600) on 1, t1 on 1 (9,600 < 12,800), t0 on 0 (12,800 <
  // 16,000).
  CHECK(p.sharding()[3].ranks == std::vector<std::int64_t>{0});
  CHECK(p.sharding()[2].ranks == std::vector<std::int64_t>{1});
  CHECK(p.sharding()[1].ranks == std::vector<std::int64_t>{1});
  CHECK(p.sharding()[0].ranks == std::vector<std::int64_t>{0});
  // A table larger than the budget is split row-wise; a fixed request is kept; open column shards go to distinct
  // ranks.
  const EmbeddingPlacement q = plan_embedding_placement(
      tables, {std::nullopt, TableSharding{Type::table_wise, {1}}, TableSharding{Type::column_wise, {-1, -1}}, {}}, 2,
      rule, Bytes{2000});
  CHECK(q.sharding()[3].type == Type::row_wise);
  CHECK(q.sharding()[1].ranks == std::vector<std::int64_t>{1});
  CHECK(q.sharding()[2].ranks.size() == 2);
  CHECK(q.sharding()[2].ranks[0] != q.sharding()[2].ranks[1]);
  // Deterministic: the same inputs, the same placement.
  const EmbeddingPlacement again = plan_embedding_placement(tables, {}, 2, rule, Bytes{1'000'000});
  for (std::size_t t = 0; t < tables.size(); ++t) CHECK(again.sharding()[t].ranks == p.sharding()[t].ranks);
}

TEST_CASE("a placement that does not fit its tables is refused at the table", "[training][embedding]") {
  const std::vector<EmbeddingTable> one{{.name = "t", .rows = 10, .dim = 12}};
  CHECK_THROWS_WITH(EmbeddingPlacement(one, {{Type::table_wise, {4}}}, 4), Catch::Contains("rank 4"));
  CHECK_THROWS_WITH(EmbeddingPlacement(one, {{Type::column_wise, {0, 1, 2, 3, 0}}}, 4),
                    Catch::Contains("do not divide its dimension 12"));
  try {
    EmbeddingPlacement(one, {{Type::table_wise, {}}}, 4);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.key() == "tables[0]");
  }
  CHECK_THROWS_WITH(parse_embedding_sharding("tablewise"), Catch::Contains("table_wise, row_wise"));
}
