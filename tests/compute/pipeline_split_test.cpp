// Megatron's pipeline splits (pipeline_split.hpp): blocks per stage and chunk, what Megatron refuses, and the first
// stage's memory under a split, each against a hand count.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "syncsim/compute/memory_check.hpp"
#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/compute/pipeline_split.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;

namespace {

using Ranges = std::vector<std::pair<std::size_t, std::size_t>>;

// System: an embedding (500 parameters, keeps nothing), 30 blocks of one layer (100 parameters, 10 elements kept per
// sample: 20 bytes in bf16) and a head (500 parameters, keeps nothing): layers 0, 1..30 and 31.
ModelSpec thirty_blocks(std::int64_t head_flops = 1) {
  std::vector<Layer> layers{{.name = "embed", .params = 500, .forward_flops = 1}};
  TransformerStructure t;
  t.hidden = t.sequence = t.kv_width = 1;
  for (std::size_t b = 0; b < 30; ++b) {
    layers.push_back({.name = fmt::format("block{}", b), .params = 100, .forward_flops = 100, .saved_elements = 10});
    t.blocks.emplace_back(b + 1, b + 2);
  }
  layers.push_back({.name = "head", .params = 500, .forward_flops = head_flops});
  return ModelSpec("thirty", layers, t);
}

MemoryReport check(const MemoryLayout& layout) {
  return memory_check(thirty_blocks(), find_gpu("H100-SXM-80GB"), 1, Precision::bf16, Optimizer::adam, layout);
}

}  // namespace

TEST_CASE("Megatron's uneven split: the first and last stages hold their counts, the middle ones share the rest") {
  // 32 blocks, 4 stages, 7 on the first and last: (32 - 14) / 2 = 9 on each middle stage.
  CHECK(split_chunk_blocks(32, 4, 1, {.first_stage_blocks = 7, .last_stage_blocks = 7}) ==
        std::vector<std::int64_t>{7, 9, 9, 7});
  // Only the first given: the other three stages share 32 - 5 = 27, 9 each.
  CHECK(split_chunk_blocks(32, 4, 1, {.first_stage_blocks = 5}) == std::vector<std::int64_t>{5, 9, 9, 9});
  // Interleaved over 2 chunks, 6 first and last, 10 on each middle stage: chunk k p + d holds stage d's count / 2.
  CHECK(split_chunk_blocks(32, 4, 2, {.first_stage_blocks = 6, .last_stage_blocks = 6}) ==
        std::vector<std::int64_t>{3, 5, 5, 3, 3, 5, 5, 3});
  // Two stages, both given: nothing in the middle, and nothing left over.
  CHECK(split_chunk_blocks(32, 2, 1, {.first_stage_blocks = 15, .last_stage_blocks = 17}) ==
        std::vector<std::int64_t>{15, 17});
}

TEST_CASE("Megatron's accounted split: the embedding and the loss each take one block's place") {
  // The Llama 3 layout: 126 blocks + 2 = 128 slots over 16 stages of 2 chunks, 4 a chunk; the first chunk of the
  // first stage and the last chunk of the last stage one fewer: 7 blocks on the first and last stages, 8 elsewhere.
  const std::vector<std::int64_t> llama =
      split_chunk_blocks(126, 16, 2, {.account_for_embedding = true, .account_for_loss = true});
  REQUIRE(llama.size() == 32);
  CHECK(llama.front() == 3);
  CHECK(llama[16] == 4);  // stage 0's second chunk
  CHECK(llama[15] == 4);  // stage 15's first chunk
  CHECK(llama.back() == 3);
  std::int64_t total = 0;
  for (std::size_t g = 0; g < llama.size(); ++g) {
    total += llama[g];
    if (g != 0 && g != 31) CHECK(llama[g] == 4);
  }
  CHECK(total == 126);
  // Eight one-block chunks a stage: the first chunk is the embedding alone (the paper's description).
  CHECK(split_chunk_blocks(126, 16, 8, {.account_for_embedding = true, .account_for_loss = true}).front() == 0);
}

TEST_CASE("splits Megatron refuses are refused, naming the key") {
  using Catch::Contains;
  // 7 blocks cannot be shared by 2 chunks (transformer_config.py: "must be divisible by virtual pipeline").
  CHECK_THROWS_WITH(split_chunk_blocks(126, 16, 2, {.first_stage_blocks = 7, .last_stage_blocks = 7}),
                    Contains("decoder_first_pipeline_num_layers: 7 blocks cannot be shared"));
  CHECK_THROWS_WITH(split_chunk_blocks(32, 4, 1, {.first_stage_blocks = 20, .last_stage_blocks = 20}),
                    Contains("must add up to the blocks"));
  // 16 + 16 of 32 leave the two middle stages empty.
  CHECK_THROWS_WITH(split_chunk_blocks(32, 4, 1, {.first_stage_blocks = 16, .last_stage_blocks = 16}),
                    Contains("leave no stage empty"));
  // Two stages, both given, 30 of 32: two blocks belong nowhere.
  CHECK_THROWS_WITH(split_chunk_blocks(32, 2, 1, {.first_stage_blocks = 15, .last_stage_blocks = 15}),
                    Contains("must add up to the blocks"));
  CHECK_THROWS_WITH(split_chunk_blocks(32, 4, 1, {.first_stage_blocks = 6, .last_stage_blocks = 7}),
                    Contains("19 blocks do not divide evenly over the 2 other stage(s)"));
  // 9 blocks on each middle stage cannot be shared by 2 chunks.
  CHECK_THROWS_WITH(split_chunk_blocks(32, 4, 2, {.first_stage_blocks = 8, .last_stage_blocks = 6}),
                    Contains("and their 2 interleaved chunks"));
  CHECK_THROWS_WITH(split_chunk_blocks(32, 4, 1, {.account_for_embedding = true, .account_for_loss = true}),
                    Contains("account_for_embedding_in_pipeline_split: the model's 32 blocks and 2 accounted"));
  CHECK_THROWS_WITH(split_chunk_blocks(32, 4, 1, {.first_stage_blocks = 8, .account_for_loss = true}),
                    Contains("the two kinds of split together"));
  CHECK_THROWS_WITH(split_chunk_blocks(32, 1, 1, {.first_stage_blocks = 8}), Contains("pipeline of 2 or more"));
  // A model without blocks has nothing to count.
  const ModelSpec cnn = find_model("resnet50");
  CHECK_THROWS_WITH(pipeline_chunk_ranges(cnn, 2, 1, {.first_stage_blocks = 1}), Contains("no transformer blocks"));
}

TEST_CASE("a split's chunks as layer ranges: the embedding with the first chunk, the head with the last") {
  const ModelSpec model = thirty_blocks();
  // Without a split, blocks that divide over the chunks go as Megatron builds them, N / (p v) each: 5 over p 3, v 2,
  // even where the head weighs 1.5 blocks and a cut by FLOPs would lighten the last chunk.
  const Ranges even{{0, 6}, {6, 11}, {11, 16}, {16, 21}, {21, 26}, {26, 32}};
  CHECK(pipeline_chunk_ranges(model, 3, 2, {}) == even);
  const ModelSpec heavy_head = thirty_blocks(150);
  CHECK(pipeline_chunk_ranges(heavy_head, 3, 2, {}) == even);
  CHECK(pipeline_stage_ranges(heavy_head, 6) != even);
  CHECK(pipeline_chunk_ranges(model, 5, 1, {}) == Ranges{{0, 7}, {7, 13}, {13, 19}, {19, 25}, {25, 32}});
  // 30 blocks over 8 chunks, which Megatron refuses: the FLOP-balanced cut.
  CHECK(pipeline_chunk_ranges(model, 4, 2, {}) == pipeline_stage_ranges(model, 8));
  // Accounted, p 4, v 2: 32 slots, 4 a chunk (pipeline_split.hpp's picture).
  CHECK(pipeline_chunk_ranges(model, 4, 2, {.account_for_embedding = true, .account_for_loss = true}) ==
        Ranges{{0, 4}, {4, 8}, {8, 12}, {12, 16}, {16, 20}, {20, 24}, {24, 28}, {28, 32}});
  // Uneven 6 / 9 / 9 / 6.
  CHECK(pipeline_chunk_ranges(model, 4, 1, {.first_stage_blocks = 6, .last_stage_blocks = 6}) ==
        Ranges{{0, 7}, {7, 16}, {16, 25}, {25, 32}});
  // One-block chunks under the accounted split: the first is the embedding alone, the last the head alone.
  const Ranges single = pipeline_chunk_ranges(model, 4, 8, {.account_for_embedding = true, .account_for_loss = true});
  CHECK(single.front() == std::pair<std::size_t, std::size_t>{0, 1});
  CHECK(single.back() == std::pair<std::size_t, std::size_t>{31, 32});
}

TEST_CASE("the first stage's peak follows the split: weights and in-flight activations of its own blocks") {
  // Accounted, p 4, v 2, 8 micro-batches interleaved. Stage 0 holds chunks 0 (embedding + blocks 0-2) and 4 (blocks
  // 15-18): 500 + 7 x 100 = 1,200 parameters, 2 B each for weights and gradients, 12 for Adam's state. Megatron's
  // warm-up there is 2 (p - 1) + (v - 1) p = 10 passes and one more: chunk 0 for micro-batches 0-3, chunk 1 for 0-3,
  // chunk 0 for 4-6, so 7 passes of 3 blocks (60 B each) and 4 of 4 blocks (80 B): 740 B. Stage 1 (8 blocks) keeps
  // 2 (p - 2) + (v - 1) p + 1 = 9 passes of 4 blocks, 720 B, beside less state: stage 0 is the fullest.
  const MemoryReport accounted = check({.pipeline = 4,
                                        .micro_batches = 8,
                                        .schedule = PipelineSchedule::interleaved,
                                        .virtual_stages = 2,
                                        .split = {.account_for_embedding = true, .account_for_loss = true}});
  CHECK(accounted.stage == 0);
  CHECK(accounted.in_flight == 11);
  CHECK(accounted.weights.value == 2 * 1'200);
  CHECK(accounted.gradients.value == 2 * 1'200);
  CHECK(accounted.optimizer_state.value == 12 * 1'200);
  CHECK(accounted.activations.value == 7 * 60 + 4 * 80);
  // Uneven 6 / 9 / 9 / 6 under 1F1B: stage 0 keeps min(p, m) = 4 micro-batches of 6 blocks (480 B) beside
  // 500 + 600 parameters; stage 1 keeps 3 of 9 blocks (540 B) beside 900 parameters, less in all.
  const MemoryReport uneven =
      check({.pipeline = 4, .micro_batches = 8, .split = {.first_stage_blocks = 6, .last_stage_blocks = 6}});
  CHECK(uneven.stage == 0);
  CHECK(uneven.weights.value == 2 * 1'100);
  CHECK(uneven.activations.value == 4 * 6 * 20);
}
