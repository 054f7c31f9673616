// place_tensors and plan_shards: TensorFlow's placements on hand-worked tensors, and conservation (every tensor on
// exactly one server, every bucket's bytes and the model's split without loss).
#include <catch2/catch.hpp>

#include <numeric>
#include <vector>

#include "syncsim/core/input_error.hpp"
#include "syncsim/training/tensor_partition.hpp"

using namespace syncsim;

TEST_CASE("round_robin: tensor t on server t mod k, in creation order") {
  CHECK(place_tensors({5, 3, 3, 2, 2}, 2, TensorPartition::round_robin) == std::vector<std::size_t>{0, 1, 0, 1, 0});
  CHECK(place_tensors({1, 1, 1}, 5, TensorPartition::round_robin) == std::vector<std::size_t>{0, 1, 2});
}

// Greedy by bytes, in creation order: 5 -> s0 (both empty: the lower index); 3 -> s1 (0 < 5); 3 -> s1 (3 < 5);
// 2 -> s0 (5 < 6); 2 -> s1 (6 < 7). Loads 7 and 8. With three servers and {4, 4, 4, 1}: one 4 on each, then the
// 1 on s0, all three tied at 4.
TEST_CASE("greedy: each tensor on the least-loaded server by bytes, ties to the lowest index") {
  CHECK(place_tensors({5, 3, 3, 2, 2}, 2, TensorPartition::greedy) == std::vector<std::size_t>{0, 1, 1, 0, 1});
  CHECK(place_tensors({4, 4, 4, 1}, 3, TensorPartition::greedy) == std::vector<std::size_t>{0, 1, 2, 0});
  // Greedy evens out what round robin piles up (18 and 2 bytes) when every other tensor is a large one.
  CHECK(place_tensors({9, 1, 9, 1}, 2, TensorPartition::round_robin) == std::vector<std::size_t>{0, 1, 0, 1});
  CHECK(place_tensors({9, 1, 9, 1}, 2, TensorPartition::greedy) == std::vector<std::size_t>{0, 1, 1, 0});  // 10 and 10
}

TEST_CASE("plan_shards: every tensor on one server, bytes and messages conserved") {
  const std::vector<std::int64_t> tensors{700, 20, 5000, 64, 300, 300, 1};
  const std::vector<std::vector<std::size_t>> buckets{{6, 5, 4}, {3, 2}, {1, 0}};
  for (const TensorPartition partition : {TensorPartition::round_robin, TensorPartition::greedy}) {
    const ShardPlan plan = plan_shards(tensors, buckets, 3, partition);
    REQUIRE(plan.server_of.size() == tensors.size());
    std::vector<double> held(3, 0);
    for (std::size_t t = 0; t < tensors.size(); ++t) held.at(plan.server_of[t]) += static_cast<double>(tensors[t]);
    double model = 0;
    std::int64_t messages = 0;
    for (std::size_t j = 0; j < 3; ++j) {
      CHECK(plan.model[j].bytes == held[j]);
      model += plan.model[j].bytes;
      messages += plan.model[j].messages;
    }
    CHECK(model == 6385);
    CHECK(messages == 7);  // one message per tensor
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      double bytes = 0;
      std::int64_t count = 0;
      for (const ServerShard& shard : plan.buckets[b]) {
        bytes += shard.bytes;
        count += shard.messages;
        CHECK((shard.messages == 0) == (shard.bytes == 0));
      }
      double expected = 0;
      for (const std::size_t t : buckets[b]) expected += static_cast<double>(tensors[t]);
      CHECK(bytes == expected);
      CHECK(count == static_cast<std::int64_t>(buckets[b].size()));
    }
  }
}

// Even: server j holds a k-th of every bucket, and every tensor is a message to each server.
TEST_CASE("plan_shards even: S / k of every bucket, each tensor k messages") {
  const ShardPlan plan = plan_shards({700, 20, 5000}, {{2}, {1, 0}}, 4, TensorPartition::even);
  CHECK(plan.server_of.empty());
  for (std::size_t j = 0; j < 4; ++j) {
    CHECK(plan.buckets[0][j].bytes == 5000.0 / 4);
    CHECK(plan.buckets[0][j].messages == 1);
    CHECK(plan.buckets[1][j].bytes == 720.0 / 4);
    CHECK(plan.buckets[1][j].messages == 2);
    CHECK(plan.model[j].bytes == 5720.0 / 4);
    CHECK(plan.model[j].messages == 3);
  }
}

TEST_CASE("plan_shards refuses what it cannot place") {
  CHECK_THROWS_AS(plan_shards({1}, {{0}}, 0, TensorPartition::even), InputError);
  CHECK_THROWS_AS(plan_shards({1}, {{}}, 1, TensorPartition::greedy), InputError);
  CHECK_THROWS_AS(plan_shards({1}, {{1}}, 1, TensorPartition::round_robin), InputError);
}
