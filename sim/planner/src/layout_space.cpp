#include "syncsim/planner/layout_space.hpp"

#include <fmt/format.h>

#include "syncsim/compute/pipeline_split.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/scenario/global_batch.hpp"

namespace syncsim::planner {

namespace {

constexpr std::int64_t kTensorSizes[] = {1, 2, 4, 8};
constexpr std::int64_t kContextSizes[] = {1, 2, 4, 8};
constexpr std::int64_t kMaxPipeline = 64;
constexpr std::int64_t kMaxVirtualStages = 8;
constexpr std::int64_t kMicroBatchSizes[] = {1, 2, 4};
constexpr std::int64_t kMinContextChunk = 512;  // tokens per chunk of Megatron's 2c-way causal split
// ZeRO-2 right after ZeRO-1: the search skips it where its ZeRO-1 twin fits as is (layout_search.cpp).
constexpr ShardingLevel kShardings[] = {ShardingLevel::none, ShardingLevel::optimizer, ShardingLevel::gradients,
                                        ShardingLevel::full};

// Powers of two, and the divisors of the blocks (a 126-block model cuts evenly into 9 or 18 stages) and of the
// stage slots (126 blocks with the embedding and the loss accounted as layers: 128 slots).
std::vector<std::int64_t> pipeline_sizes(std::int64_t blocks, std::int64_t slots) {
  std::vector<std::int64_t> out;
  for (std::int64_t p = 1; p <= std::min(blocks, kMaxPipeline); ++p) {
    if ((p & (p - 1)) == 0 || blocks % p == 0 || slots % p == 0) out.push_back(p);
  }
  return out;
}

// The scenario's pipeline split as it applies to p stages (layout_space.hpp).
PipelineSplit carried_split(const LayoutSpace& space, std::int64_t pipeline) {
  const PipelineSplit written = space.written.pipeline_split();
  if (pipeline < 2 || !space.transformer) return {};
  if (written.accounted()) {
    return {.account_for_embedding = written.account_for_embedding, .account_for_loss = written.account_for_loss};
  }
  return pipeline == space.written.pipeline.value ? written : PipelineSplit{};
}

// Whether p stages of v chunks can be built: without a split the blocks divide over the chunks when interleaved
// (without interleaving blocks that do not divide are cut by FLOPs: pipeline_split.hpp); with one, as Megatron
// builds it (split_chunk_blocks, which throws what it refuses).
bool stages_build(const LayoutSpace& space, std::int64_t p, std::int64_t v, const PipelineSplit& split) {
  if (!split.set()) return v == 1 || space.blocks % (p * v) == 0;
  try {
    split_chunk_blocks(space.blocks, p, v, split);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

std::vector<std::int64_t> expert_sizes(const LayoutSpace& space, std::int64_t ranks) {
  std::vector<std::int64_t> out;
  for (std::int64_t e = 1; e <= space.experts; ++e) {
    if (space.experts % e == 0 && ranks % e == 0) out.push_back(e);
  }
  return out;
}

bool context_splits(const LayoutSpace& space, std::int64_t c) {
  if (c == 1) return true;
  return space.transformer && space.experts == 1 && space.sequence % (2 * c) == 0 &&
         space.sequence / (2 * c) >= kMinContextChunk;
}

// FSDP's FP8 all-gathers without a pipeline or experts (torchao), or Megatron's FP8 parameters under its distributed
// optimizer: wherever the scenario's sharded parameters are gathered.
bool fp8_gather_applies(const LayoutSpace& space, const LayoutChoice& c) {
  if (!space.written.fp8_all_gather.value || c.sharding == ShardingLevel::none) return false;
  return c.sharding != ShardingLevel::full || c.pipeline * c.expert == 1;
}

// The choices of one (t, c, p, v, e) shape over every batch split and sharding.
void add_batches(const LayoutSpace& space, std::int64_t global_batch, LayoutChoice shape,
                 std::vector<LayoutChoice>& out, SkipCounts& skipped) {
  const std::vector<std::int64_t> batches =
      space.transformer ? std::vector<std::int64_t>(std::begin(kMicroBatchSizes), std::end(kMicroBatchSizes))
                        : std::vector<std::int64_t>{space.batch_per_gpu};
  for (const std::int64_t b : batches) {
    shape.batch_per_gpu = b;
    const MicroBatchSplit split = split_global_batch(global_batch, shape.data, b);
    if (split.refusal) {
      ++skipped["the global batch does not divide over data-parallel ranks x micro-batch size"];
      continue;
    }
    shape.micro_batches = split.micro_batches;
    if (shape.virtual_stages > 1 && shape.micro_batches % shape.pipeline != 0) {
      ++skipped["interleaved: the micro-batches are not a multiple of the pipeline stages"];
      continue;
    }
    for (const ShardingLevel sharding : kShardings) {
      if (sharding != ShardingLevel::none && shape.data < 2) continue;  // one data-parallel rank: nothing to shard
      if (sharding == ShardingLevel::full && shape.expert > 1 && shape.pipeline == 1) {
        ++skipped["expert parallelism with full sharding and no pipeline (not simulated)"];
        continue;
      }
      if (sharding == ShardingLevel::full && shape.tensor > 1 && !shape.sequence_parallel) {
        ++skipped["full sharding beside tensor parallelism without sequence parallelism (PyTorch's layout has it)"];
        continue;
      }
      shape.sharding = sharding;
      shape.fp8_all_gather = fp8_gather_applies(space, shape);
      const bool megatron = megatron_layout(shape.tensor * shape.pipeline * shape.context * shape.expert, sharding);
      shape.grad_reduce_in_fp32 = !megatron || space.written.grad_reduce_in_fp32.value;
      out.push_back(shape);
    }
  }
}

}  // namespace

std::vector<LayoutChoice> layout_choices(const LayoutSpace& space, std::int64_t gpus, std::int64_t global_batch,
                                         SkipCounts& skipped) {
  std::vector<LayoutChoice> out;
  const std::int64_t blocks = space.transformer ? space.blocks : 1;
  const PipelineSplit written = space.written.pipeline_split();
  const std::int64_t slots = blocks + (written.account_for_embedding ? 1 : 0) + (written.account_for_loss ? 1 : 0);
  for (const std::int64_t t : kTensorSizes) {
    if (t > 1 && !space.transformer) break;
    for (const std::int64_t c : kContextSizes) {
      if (!context_splits(space, c)) continue;
      for (const std::int64_t p : pipeline_sizes(blocks, slots)) {
        if (gpus % (t * c * p) != 0) continue;
        const std::int64_t data = gpus / (t * c * p);
        const PipelineSplit split = carried_split(space, p);
        for (std::int64_t v = 1; v <= kMaxVirtualStages; ++v) {
          if (v > 1 && p == 1) continue;
          if (p > 1 && !stages_build(space, p, v, split)) {
            if (v == 1) ++skipped["the scenario's pipeline split does not divide over these stages"];
            continue;
          }
          for (const std::int64_t e : expert_sizes(space, data * c)) {
            LayoutChoice shape{.tensor = t,
                               .context = c,
                               .pipeline = p,
                               .virtual_stages = v,
                               .expert = e,
                               .data = data,
                               .tp_comm_overlap = space.tp_comm_overlap && t > 1,
                               .userbuffers = space.tp_comm_overlap && t > 1 && space.written.userbuffers
                                                  ? std::optional(space.written.userbuffers->value)
                                                  : std::nullopt,
                               .sequence_parallel = space.written.sequence_parallel.value,
                               .split = split};
            add_batches(space, global_batch, shape, out, skipped);
          }
        }
      }
    }
  }
  return out;
}

std::optional<LayoutChoice> own_layout(const LayoutSpace& space, std::int64_t gpus, std::int64_t global_batch) {
  const ParallelismConfig& p = space.written;
  const std::int64_t split = p.tensor.value * p.pipeline.value * p.context.value;
  if (p.schedule.value == PipelineSchedule::gpipe || p.shard_group || gpus % split != 0) return std::nullopt;
  LayoutChoice c{.tensor = p.tensor.value,
                 .context = p.context.value,
                 .pipeline = p.pipeline.value,
                 .virtual_stages = p.virtual_stages ? p.virtual_stages->value : 1,
                 .expert = p.expert.value,
                 .data = gpus / split,
                 .batch_per_gpu = space.batch_per_gpu,
                 .micro_batches = 1,
                 .sharding = p.sharding.value,
                 .checkpointing = p.activation_checkpointing.value,
                 .tp_comm_overlap = p.tp_comm_overlap.value,
                 .userbuffers = p.userbuffers ? std::optional(p.userbuffers->value) : std::nullopt,
                 .sequence_parallel = p.sequence_parallel.value,
                 .split = p.pipeline_split(),
                 .fp8_all_gather = p.fp8_all_gather.value,
                 .grad_reduce_in_fp32 = p.grad_reduce_in_fp32.value};
  const MicroBatchSplit micro = split_global_batch(global_batch, c.data, c.batch_per_gpu);
  if (micro.refusal || (c.virtual_stages > 1 && micro.micro_batches % c.pipeline != 0)) return std::nullopt;
  c.micro_batches = micro.micro_batches;
  return c;
}

ParallelismConfig parallelism_of(const LayoutChoice& c) {
  ParallelismConfig p;
  p.tensor.value = c.tensor;
  p.pipeline.value = c.pipeline;
  p.context.value = c.context;
  p.expert.value = c.expert;
  p.sharding.value = c.sharding;
  if (c.virtual_stages > 1) {
    p.schedule.value = PipelineSchedule::interleaved;
    p.virtual_stages = Located<std::int64_t>{c.virtual_stages, {}, {}};
  }
  p.activation_checkpointing.value = c.checkpointing;
  p.tp_comm_overlap.value = c.tp_comm_overlap;
  if (c.tp_comm_overlap && c.userbuffers && c.sharding != ShardingLevel::full) {
    p.userbuffers = Located<UserbuffersConfig>{*c.userbuffers, {}, {}};
  }
  p.sequence_parallel.value = c.sequence_parallel;
  p.fp8_all_gather.value = c.fp8_all_gather;
  p.grad_reduce_in_fp32.value = c.grad_reduce_in_fp32;
  const auto count = [](std::int64_t blocks) {
    return blocks > 0 ? std::optional{Located<std::int64_t>{blocks, {}, {}}} : std::nullopt;
  };
  p.first_stage_blocks = count(c.split.first_stage_blocks);
  p.last_stage_blocks = count(c.split.last_stage_blocks);
  p.account_for_embedding.value = c.split.account_for_embedding;
  p.account_for_loss.value = c.split.account_for_loss;
  return p;
}

std::vector<std::string> overrides_of(const LayoutChoice& c, bool global_batch_key) {
  std::string section = fmt::format("parallelism={{tensor: {}, pipeline: {}, context: {}, expert: {}, sharding: {}",
                                    c.tensor, c.pipeline, c.context, c.expert, to_string(c.sharding));
  if (c.virtual_stages > 1) section += fmt::format(", schedule: interleaved, virtual_stages: {}", c.virtual_stages);
  section += fmt::format(", activation_checkpointing: {}", to_string(c.checkpointing));
  if (c.tp_comm_overlap) {
    section += ", tp_comm_overlap: ";
    section += c.userbuffers && c.sharding != ShardingLevel::full ? to_flow_yaml(*c.userbuffers) : "true";
  }
  if (!c.sequence_parallel) section += ", sequence_parallel: false";
  if (c.fp8_all_gather) section += ", fp8_all_gather: true";
  if (!c.grad_reduce_in_fp32) section += ", grad_reduce_in_fp32: false";
  if (c.split.first_stage_blocks > 0) {
    section += fmt::format(", decoder_first_pipeline_num_layers: {}", c.split.first_stage_blocks);
  }
  if (c.split.last_stage_blocks > 0) {
    section += fmt::format(", decoder_last_pipeline_num_layers: {}", c.split.last_stage_blocks);
  }
  if (c.split.account_for_embedding) section += ", account_for_embedding_in_pipeline_split: true";
  if (c.split.account_for_loss) section += ", account_for_loss_in_pipeline_split: true";
  section += "}";
  std::vector<std::string> out{section, fmt::format("model.batch_per_gpu={}", c.batch_per_gpu),
                               fmt::format("model.micro_batches={}", c.micro_batches)};
  if (global_batch_key) out.push_back(fmt::format("model.global_batch={}", c.data * c.batch_per_gpu * c.micro_batches));
  return out;
}

std::string label_of(const LayoutChoice& c) {
  std::string out = fmt::format("TP{} PP{}", c.tensor, c.pipeline);
  if (c.virtual_stages > 1) out += fmt::format(" VP{}", c.virtual_stages);
  if (c.context > 1) out += fmt::format(" CP{}", c.context);
  if (c.expert > 1) out += fmt::format(" EP{}", c.expert);
  out += fmt::format(" DP{} {} b{} m{}", c.data, to_string(c.sharding), c.batch_per_gpu, c.micro_batches);
  if (c.checkpointing != ActivationCheckpointing::none) out += fmt::format(" +{}", to_string(c.checkpointing));
  return out;
}

}  // namespace syncsim::planner
