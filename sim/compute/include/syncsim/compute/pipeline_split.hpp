#pragma once
// pipeline_split: which transformer blocks each pipeline stage (and each of its interleaved chunks) holds, when the
// scenario says so as Megatron-LM does (`parallelism.decoder_first_pipeline_num_layers`, ...; docs/compute.md,
// "Balanced pipeline splits"). Memory (memory_check) and the timing's stage cuts (layout_communication) both follow it.
//
// Without a split a transformer's N blocks go as Megatron-LM builds them when they divide over the p x v chunks: N /
// (p v) blocks a chunk, the embedding with the first and the LM head and loss with the last (get_num_layers_to_build).
// Megatron refuses blocks that do not divide; syncsim then cuts by forward FLOPs (pipeline_stage_ranges), as it cuts a
// model without blocks. With a split, N blocks go as Megatron's transformer_block.py (get_num_layers_to_build) and
// transformer_layer.py (get_transformer_layer_offset) build them:
//
//   uneven       decoder_first_pipeline_num_layers F and/or decoder_last_pipeline_num_layers L: the first (last)
//                stage holds F (L) blocks, the m middle stages (those without a count) (N - F - L) / m each
//   accounted    account_for_embedding_in_pipeline_split e and/or account_for_loss_in_pipeline_split l: the
//                embedding and the loss count as one layer each, N + e + l slots / p per stage; the first chunk of
//                the first stage holds one block fewer (the embedding takes its slot), the last chunk of the last
//                stage one fewer (the LM head and loss)
//
// With v interleaved chunks a stage's blocks are split v ways, chunk k of stage d being chunk k p + d of the model
// (stage 0's chunk 0, stage 1's chunk 0, ..., stage 0's chunk 1, ...):
//
//   p = 4, v = 2, N = 30, account for both:  32 slots, 8 a stage, 4 a chunk
//     stage 0: [emb 0 1 2] [15 16 17 18]   stage 1: [3 4 5 6] [19 20 21 22]
//     stage 2: [7 8 9 10] [23 24 25 26]    stage 3: [11 12 13 14] [27 28 29 head+loss]
//
// What Megatron refuses is refused (transformer_config.py, __post_init__): a count below 1, counts that do not add
// up to the blocks, middle stages left without a block or sharing them unevenly, a stage's blocks (or slots) that
// its v chunks cannot share evenly, and the two kinds of split together.
#include <cstdint>
#include <utility>
#include <vector>

#include "syncsim/compute/model_spec.hpp"

namespace syncsim {

struct PipelineSplit {
  std::int64_t first_stage_blocks = 0;  // decoder_first_pipeline_num_layers; 0: not set
  std::int64_t last_stage_blocks = 0;   // decoder_last_pipeline_num_layers; 0: not set
  bool account_for_embedding = false;   // account_for_embedding_in_pipeline_split
  bool account_for_loss = false;        // account_for_loss_in_pipeline_split

  bool uneven() const { return first_stage_blocks > 0 || last_stage_blocks > 0; }
  bool accounted() const { return account_for_embedding || account_for_loss; }
  bool set() const { return uneven() || accounted(); }
};

// Blocks per chunk, in the model's order (chunk k p + d is stage d's k-th), for `blocks` blocks over `stages` stages
// of `virtual_stages` chunks each. Throws InputError, naming the parallelism key, for a split Megatron refuses.
std::vector<std::int64_t> split_chunk_blocks(std::int64_t blocks, std::int64_t stages, std::int64_t virtual_stages,
                                             const PipelineSplit& split);

// Layer ranges [first, last) of the stages x virtual_stages chunks in the same order, as pipeline_stage_ranges gives
// them: each chunk its blocks (split_chunk_blocks' with a split, N / (p v) without one), the embedding (the layers
// before the first block) with the first chunk and the LM head and loss (the layers after the last) with the last;
// without a split of blocks that do not divide, or of a model without blocks, exactly pipeline_stage_ranges(model,
// stages x virtual_stages). Throws InputError for a split of a model without blocks, or one that leaves a chunk
// without a layer (an embedding-only chunk of a model whose embedding is not a layer).
std::vector<std::pair<std::size_t, std::size_t>> pipeline_chunk_ranges(const ModelSpec& model, std::int64_t stages,
                                                                       std::int64_t virtual_stages,
                                                                       const PipelineSplit& split);

}  // namespace syncsim
