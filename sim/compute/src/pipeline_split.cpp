#include "syncsim/compute/pipeline_split.hpp"

#include <fmt/format.h>

#include "syncsim/compute/memory_check.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

constexpr const char* kFirstKey = "decoder_first_pipeline_num_layers";
constexpr const char* kLastKey = "decoder_last_pipeline_num_layers";

// Blocks per stage under Megatron's uneven split (get_num_layers_to_build), each a multiple of v.
std::vector<std::int64_t> uneven_stage_blocks(std::int64_t blocks, std::int64_t stages, std::int64_t v,
                                              const PipelineSplit& split) {
  std::int64_t middle_blocks = blocks;
  std::int64_t middle_stages = stages;
  for (const auto& [count, key] :
       {std::pair{split.first_stage_blocks, kFirstKey}, {split.last_stage_blocks, kLastKey}}) {
    if (count == 0) continue;
    if (count % v != 0) {
      throw InputError(
          fmt::format("{}: {} blocks cannot be shared by the stage's {} interleaved chunks (Megatron "
                      "needs a multiple of virtual_stages)",
                      key, count, v));
    }
    middle_blocks -= count;
    --middle_stages;
  }
  const std::string keys = split.first_stage_blocks > 0 && split.last_stage_blocks > 0
                               ? fmt::format("{} + {}", kFirstKey, kLastKey)
                           : split.first_stage_blocks > 0 ? kFirstKey
                                                          : kLastKey;
  if (middle_blocks < 0 || (middle_stages == 0) != (middle_blocks == 0)) {
    throw InputError(
        fmt::format("{}: {} blocks on the first and last stages leave {} of the model's {} for {} other "
                    "stage(s); the split must add up to the blocks and leave no stage empty",
                    keys, blocks - middle_blocks, middle_blocks, blocks, middle_stages));
  }
  if (middle_stages > 0 && (middle_blocks % middle_stages != 0 || (middle_blocks / middle_stages) % v != 0)) {
    throw InputError(
        fmt::format("{}: the other {} blocks do not divide evenly over the {} other stage(s){} (Megatron "
                    "gives each the same count)",
                    keys, middle_blocks, middle_stages,
                    v > 1 ? fmt::format(" and their {} interleaved chunks", v) : std::string{}));
  }
  std::vector<std::int64_t> out(static_cast<std::size_t>(stages),
                                middle_stages > 0 ? middle_blocks / middle_stages : 0);
  if (split.first_stage_blocks > 0) out.front() = split.first_stage_blocks;
  if (split.last_stage_blocks > 0) out.back() = split.last_stage_blocks;
  return out;
}

}  // namespace

std::vector<std::int64_t> split_chunk_blocks(std::int64_t blocks, std::int64_t stages, std::int64_t virtual_stages,
                                             const PipelineSplit& split) {
  const std::int64_t v = virtual_stages;
  if (split.uneven() && split.accounted()) {
    throw InputError(
        fmt::format("{} and {} cannot be set with account_for_embedding_in_pipeline_split or "
                    "account_for_loss_in_pipeline_split (Megatron refuses the two kinds of split together)",
                    kFirstKey, kLastKey));
  }
  if (stages < 2) throw InputError("a pipeline split needs parallelism.pipeline of 2 or more");
  std::vector<std::int64_t> out(static_cast<std::size_t>(stages * v));
  if (split.uneven()) {
    const std::vector<std::int64_t> per_stage = uneven_stage_blocks(blocks, stages, v, split);
    for (std::int64_t g = 0; g < stages * v; ++g) out[static_cast<std::size_t>(g)] = per_stage[g % stages] / v;
    return out;
  }
  // Megatron's accounted split: the embedding and the loss each take a layer's slot.
  const std::int64_t slots = blocks + (split.account_for_embedding ? 1 : 0) + (split.account_for_loss ? 1 : 0);
  const char* key =
      split.account_for_embedding ? "account_for_embedding_in_pipeline_split" : "account_for_loss_in_pipeline_split";
  if (slots % stages != 0 || (slots / stages) % v != 0) {
    throw InputError(
        fmt::format("{}: the model's {} blocks and {} accounted layer(s), {} in all, do not divide "
                    "evenly over {} stages of {} chunk(s) (Megatron gives each chunk the same count)",
                    key, blocks, slots - blocks, slots, stages, v));
  }
  std::fill(out.begin(), out.end(), slots / (stages * v));
  if (split.account_for_embedding) --out.front();
  if (split.account_for_loss) --out.back();
  return out;
}

std::vector<std::pair<std::size_t, std::size_t>> pipeline_chunk_ranges(const ModelSpec& model, std::int64_t stages,
                                                                       std::int64_t virtual_stages,
                                                                       const PipelineSplit& split) {
  const auto& t = model.transformer();
  const std::int64_t chunks = stages * virtual_stages;
  const bool has_blocks = t && !t->blocks.empty();
  const auto n = has_blocks ? static_cast<std::int64_t>(t->blocks.size()) : 0;
  if (!split.set() && (!has_blocks || n % chunks != 0)) return pipeline_stage_ranges(model, chunks);
  if (!has_blocks) {
    throw InputError(fmt::format("model '{}' has no transformer blocks for a pipeline split to count", model.name()));
  }
  // Without a split, Megatron's own: every chunk the same count of blocks (get_num_layers_to_build).
  const std::vector<std::int64_t> counts =
      split.set() ? split_chunk_blocks(n, stages, virtual_stages, split)
                  : std::vector<std::int64_t>(static_cast<std::size_t>(chunks), n / chunks);
  // Where chunk g ends: after its blocks, the embedding before the first block, the head after the last.
  const auto cut_after = [&](std::int64_t done) -> std::size_t {
    if (done == 0) return t->blocks.front().first;
    if (done == n) return t->blocks.back().second;
    return t->blocks[static_cast<std::size_t>(done)].first;
  };
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t start = 0;
  std::int64_t done = 0;
  for (std::size_t g = 0; g < counts.size(); ++g) {
    done += counts[g];
    const std::size_t end = g + 1 == counts.size() ? model.layers().size() : cut_after(done);
    if (end <= start) {
      throw InputError(fmt::format("the pipeline split leaves stage {}'s chunk {} of model '{}' without a layer",
                                   static_cast<std::int64_t>(g) % stages, static_cast<std::int64_t>(g) / stages,
                                   model.name()));
    }
    out.emplace_back(start, end);
    start = end;
  }
  return out;
}

}  // namespace syncsim
