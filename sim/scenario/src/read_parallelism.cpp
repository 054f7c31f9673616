// The `parallelism:` section (parallelism_config.hpp): the layout's sizes, what ZeRO shards, the pipeline's schedule.
// Whether the sizes fit the workers is checked across sections (check_scenario.cpp).
#include <fmt/format.h>

#include "enum_names.hpp"
#include "field_reader.hpp"
#include "sections.hpp"

namespace syncsim::scenario_detail {

namespace {

// A layout dimension beyond 2^20 GPUs is no cluster's; refused before products of them overflow.
constexpr std::int64_t kMaxParallelDimension = std::int64_t{1} << 20;
constexpr std::int64_t kMaxVirtualStages = 10'000;

Located<std::int64_t> read_size_key(const MapReader& reader, std::string_view key) {
  const ConfigNode* node = reader.get(key);
  if (!node) return reader.defaulted(key, std::int64_t{1});
  const std::int64_t value = read_count(*node, reader.path(key), 1);
  if (value > kMaxParallelDimension) {
    fail(*node, reader.path(key), fmt::format("expected at most {} GPUs, got {}", kMaxParallelDimension, value));
  }
  return located(value, *node, reader.path(key));
}

// `data` and `shard_group`: a size, or the word that means "all there are".
std::optional<Located<std::int64_t>> read_size_or(const MapReader& reader, std::string_view key,
                                                  std::string_view word) {
  const ConfigNode* node = reader.get(key);
  if (!node || (node->kind == ConfigNode::Kind::scalar && node->text == word)) return std::nullopt;
  return read_size_key(reader, key);
}

// Megatron's balanced pipeline splits (pipeline_split.hpp). What needs the model's blocks is checked when the
// scenario is resolved; here what needs only the section: counts of at least 1, a pipeline to split, one kind of split.
void read_pipeline_split(const MapReader& reader, ParallelismConfig& p) {
  for (const auto& [key, field] : {std::pair{"decoder_first_pipeline_num_layers", &p.first_stage_blocks},
                                   std::pair{"decoder_last_pipeline_num_layers", &p.last_stage_blocks}}) {
    if (const ConfigNode* node = reader.get(key))
      *field = located(read_count(*node, reader.path(key), 1), *node, reader.path(key));
  }
  for (const auto& [key, field] : {std::pair{"account_for_embedding_in_pipeline_split", &p.account_for_embedding},
                                   std::pair{"account_for_loss_in_pipeline_split", &p.account_for_loss}}) {
    if (const ConfigNode* node = reader.get(key))
      *field = located(read_bool(*node, reader.path(key)), *node, reader.path(key));
  }
  const PipelineSplit split = p.pipeline_split();
  if (!split.set()) return;
  const auto fail_at = [&](const std::string& message) {
    if (p.first_stage_blocks) throw p.first_stage_blocks->error(message);
    if (p.last_stage_blocks) throw p.last_stage_blocks->error(message);
    throw(p.account_for_embedding.value ? p.account_for_embedding : p.account_for_loss).error(message);
  };
  if (p.pipeline.value < 2) fail_at("a pipeline split needs parallelism.pipeline of 2 or more");
  if (split.uneven() && split.accounted()) {
    fail_at(
        "decoder_first/last_pipeline_num_layers cannot be set with account_for_embedding/loss_in_pipeline_split "
        "(Megatron refuses the two kinds of split together)");
  }
}

// A path to a userbuffers file: a scalar that names a YAML file (NeMo's ub_cfg files end so).
bool names_yaml_file(const ConfigNode& node) {
  return node.kind == ConfigNode::Kind::scalar && (node.text.ends_with(".yaml") || node.text.ends_with(".yml"));
}

// true, false, or Transformer Engine's userbuffers configuration (userbuffers_config.hpp), inline or in a file,
// Megatron's layouts only.
void read_tp_comm_overlap(const ConfigNode& overlap, const MapReader& reader, const std::filesystem::path& base_dir,
                          ParallelismConfig& p) {
  const std::string path = reader.path("tp_comm_overlap");
  if (overlap.kind == ConfigNode::Kind::mapping || names_yaml_file(overlap)) {
    p.userbuffers = located(overlap.kind == ConfigNode::Kind::mapping ? read_userbuffers(overlap, path)
                                                                      : read_userbuffers_file(overlap, path, base_dir),
                            overlap, path);
    p.tp_comm_overlap = located(true, overlap, path);
  } else if (overlap.kind != ConfigNode::Kind::scalar || !bool_text(overlap.text)) {
    fail(overlap, path,
         fmt::format("expected true, false, Transformer Engine's userbuffers configuration (a mapping of its layer "
                     "names, as NeMo's ub_cfg files write it) or the path of a .yaml file holding it, got {}",
                     describe(overlap)));
  } else {
    p.tp_comm_overlap = located(read_bool(overlap, path), overlap, path);
  }
  if (p.tp_comm_overlap.value && p.tensor.value < 2) {
    throw p.tp_comm_overlap.error(
        "overlaps tensor-parallel collectives with GEMMs: it needs parallelism.tensor above 1");
  }
  if (!p.userbuffers) return;
  if (p.sharding.value == ShardingLevel::full) {
    throw p.userbuffers->error(
        "Transformer Engine's userbuffers configuration is Megatron's (sharding none, optimizer or gradients); "
        "PyTorch's async TP beside full sharding takes tp_comm_overlap: true");
  }
  check_ring_pairs(*p.userbuffers, p.tensor.value);
}

}  // namespace

ParallelismConfig read_parallelism(const ConfigNode& node, const std::filesystem::path& base_dir) {
  ParallelismConfig p;
  if (node.kind == ConfigNode::Kind::null) return p;
  const MapReader reader(node, "parallelism",
                         {"tensor",
                          "pipeline",
                          "data",
                          "context",
                          "expert",
                          "sharding",
                          "shard_group",
                          "micro_batches",
                          "schedule",
                          "virtual_stages",
                          "activation_checkpointing",
                          "tp_comm_overlap",
                          "sequence_parallel",
                          "fp8_all_gather",
                          "grad_reduce_in_fp32",
                          "tp_only_amax_red",
                          "decoder_first_pipeline_num_layers",
                          "decoder_last_pipeline_num_layers",
                          "account_for_embedding_in_pipeline_split",
                          "account_for_loss_in_pipeline_split"});
  p.tensor = read_size_key(reader, "tensor");
  p.pipeline = read_size_key(reader, "pipeline");
  p.context = read_size_key(reader, "context");
  p.expert = read_size_key(reader, "expert");
  p.data = read_size_or(reader, "data", "auto");
  p.shard_group = read_size_or(reader, "shard_group", "all");
  if (const ConfigNode* sharding = reader.get("sharding")) {
    p.sharding =
        located(read_choice(*sharding, reader.path("sharding"), kShardingNames), *sharding, reader.path("sharding"));
  }
  if (p.shard_group && p.sharding.value == ShardingLevel::none) {
    throw p.shard_group->error("a shard group needs something to shard: set parallelism.sharding");
  }
  // Megatron has one count for both: the micro-batches a pipeline runs per iteration are the gradient
  // accumulation steps, model.micro_batches.
  if (const ConfigNode* micro = reader.get("micro_batches")) {
    fail(*micro, reader.path("micro_batches"),
         "the pipeline's micro-batches per iteration are model.micro_batches (gradient accumulation and pipeline "
         "micro-batches are one count)");
  }
  if (const ConfigNode* schedule = reader.get("schedule")) {
    p.schedule =
        located(read_choice(*schedule, reader.path("schedule"), kScheduleNames), *schedule, reader.path("schedule"));
  }
  if (const ConfigNode* virtual_stages = reader.get("virtual_stages")) {
    if (p.schedule.value != PipelineSchedule::interleaved) {
      fail(*virtual_stages, reader.path("virtual_stages"), "virtual stages are for schedule: interleaved");
    }
    const std::int64_t chunks = read_count(*virtual_stages, reader.path("virtual_stages"), 2);
    // Each chunk holds at least one block, and no model has more than 10,000 (the shape keys' limit): refused
    // here, before pipeline x virtual_stages can overflow.
    if (chunks > kMaxVirtualStages) {
      fail(*virtual_stages, reader.path("virtual_stages"),
           fmt::format("expected at most {} model chunks per GPU (each holds a transformer block), got {}",
                       kMaxVirtualStages, chunks));
    }
    p.virtual_stages = located(chunks, *virtual_stages, reader.path("virtual_stages"));
  } else if (p.schedule.value == PipelineSchedule::interleaved) {
    throw p.schedule.error("schedule: interleaved needs virtual_stages (model chunks per GPU, at least 2)");
  }
  if (const ConfigNode* checkpointing = reader.get("activation_checkpointing")) {
    p.activation_checkpointing =
        located(read_choice(*checkpointing, reader.path("activation_checkpointing"), kCheckpointingNames),
                *checkpointing, reader.path("activation_checkpointing"));
  }
  if (const ConfigNode* overlap = reader.get("tp_comm_overlap")) read_tp_comm_overlap(*overlap, reader, base_dir, p);
  if (const ConfigNode* sequence = reader.get("sequence_parallel")) {
    p.sequence_parallel =
        located(read_bool(*sequence, reader.path("sequence_parallel")), *sequence, reader.path("sequence_parallel"));
    if (!p.sequence_parallel.value && p.tp_comm_overlap.value) {
      // Megatron-LM's arguments.py: the overlap pipelines the sequence-parallel all-gathers and reduce-scatters.
      throw p.sequence_parallel.error(
          "Megatron overlaps the sequence-parallel all-gathers and reduce-scatters with the GEMMs: "
          "tp_comm_overlap needs sequence parallelism");
    }
  }
  if (const ConfigNode* gather = reader.get("fp8_all_gather")) {
    p.fp8_all_gather =
        located(read_bool(*gather, reader.path("fp8_all_gather")), *gather, reader.path("fp8_all_gather"));
    if (p.fp8_all_gather.value && p.sharding.value == ShardingLevel::none) {
      throw p.fp8_all_gather.error(
          "sends the sharded parameters' all-gathers in FP8 (FSDP's, or Megatron's distributed optimizer's): it needs "
          "parallelism.sharding: optimizer, gradients or full");
    }
    if (p.fp8_all_gather.value && p.sharding.value == ShardingLevel::full && p.pipeline.value * p.expert.value > 1) {
      throw p.fp8_all_gather.error(
          "FP8 all-gathers are simulated for FSDP alone or beside tensor and context parallelism, not with a "
          "pipeline or expert parallelism");
    }
  }
  if (const ConfigNode* reduce = reader.get("grad_reduce_in_fp32")) {
    p.grad_reduce_in_fp32 =
        located(read_bool(*reduce, reader.path("grad_reduce_in_fp32")), *reduce, reader.path("grad_reduce_in_fp32"));
  }
  if (const ConfigNode* tp_only = reader.get("tp_only_amax_red")) {
    p.tp_only_amax_red =
        located(read_bool(*tp_only, reader.path("tp_only_amax_red")), *tp_only, reader.path("tp_only_amax_red"));
  }
  read_pipeline_split(reader, p);
  return p;
}

}  // namespace syncsim::scenario_detail
