#pragma once
// The layouts `syncsim plan --layouts auto` draws from at one GPU count, valid by construction: each candidate is
// one the engines simulate, and what is left out for a reason the user could not guess is counted by that reason.
//
//   tensor t        1, 2, 4, 8 (one NVLink node; Megatron's and torchtitan's tensor groups stay inside it)
//   context c       1, 2, 4, 8 for a transformer whose sequence splits into 2c chunks of at least 512 tokens
//                   (Megatron's load-balanced causal split), and no experts beside it
//   pipeline p      powers of two and divisors of the blocks up to 64 (and the blocks); t x c x p divides the
//                   GPUs, data d = the rest
//   virtual v       1 (1F1B), or 2 to 8 chunks per stage (interleaved) when p > 1 and p x v divides the blocks
//                   (Megatron's layers per virtual stage); the micro-batches a multiple of p
//   expert e        1, or a divisor of a MoE model's experts that divides d x c
//   micro-batch b   1, 2, 4 samples for a transformer (the scenario's batch_per_gpu otherwise)
//   global batch    held at every candidate of a count (layouts compared on the same work per iteration)
//   micro-batches   m = global batch / (d x b): a global batch d x b does not divide is skipped with that reason
//   sharding        none, optimizer (ZeRO-1, Megatron's distributed optimizer), gradients (ZeRO-2, where ZeRO-1
//                   needs recomputation or does not fit), full (FSDP) when d > 1
//   checkpointing   none, then selective, full: the first that fits (layout_search.cpp; op-level selective is
//                   not tried: it took the frontier question from 43 s to 57 s, docs/planner.md)
//
// tp_comm_overlap follows the scenario's when t > 1, with its Transformer Engine configuration where it gives one (on
// Megatron's layouts; full sharding beside TP runs PyTorch's async TP). So do the scenario's other parallelism keys,
// where they apply:
//   account_for_embedding/loss_in_pipeline_split  every candidate with p > 1; a (p, v) whose blocks and accounted
//                   layers do not divide over the stages and chunks is skipped with that reason (Megatron refuses it)
//   decoder_first/last_pipeline_num_layers         the candidates with the scenario's own p (the counts name blocks
//                   of that many stages); other p split their blocks evenly (by forward FLOPs where they do not
//                   divide; pipeline_split.hpp)
//   fp8_all_gather  the sharded candidates: full sharding without a pipeline or experts (FSDP's all-gathers),
//                   sharding optimizer or gradients (Megatron's FP8 parameters)
//   grad_reduce_in_fp32: false  the candidates in Megatron's layout (a model split, sharding not full)
//   sequence_parallel: false  every candidate, and full sharding beside tensor parallelism (PyTorch's layout, which
//                   shards the norms' sequence) is skipped with that reason
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "syncsim/scenario/parallelism_config.hpp"

namespace syncsim::planner {

// The model's facts the space depends on, and the batch it holds.
struct LayoutSpace {
  bool transformer = false;
  std::int64_t blocks = 0;
  std::int64_t sequence = 0;
  std::int64_t experts = 1;  // a MoE model's routed experts; 1 when dense
  bool tp_comm_overlap = false;
  std::int64_t batch_per_gpu = 1;  // the scenario's: a model without transformer blocks keeps it
  ParallelismConfig written;       // the scenario's own layout, the search's incumbent (own_layout)
  bool global_batch_key = false;   // the scenario states model.global_batch: candidates restate it
};

struct LayoutChoice {
  std::int64_t tensor = 1;
  std::int64_t context = 1;
  std::int64_t pipeline = 1;
  std::int64_t virtual_stages = 1;
  std::int64_t expert = 1;
  std::int64_t data = 1;
  std::int64_t batch_per_gpu = 1;
  std::int64_t micro_batches = 1;
  ShardingLevel sharding = ShardingLevel::none;
  ActivationCheckpointing checkpointing = ActivationCheckpointing::none;
  bool tp_comm_overlap = false;
  std::optional<UserbuffersConfig> userbuffers = std::nullopt;  // the scenario's (above)
  bool sequence_parallel = true;                                // the scenario's (above)
  PipelineSplit split{};                                        // the scenario's, where it applies (above)
  bool fp8_all_gather = false;                                  // the scenario's, where it applies (above)
  bool grad_reduce_in_fp32 = true;  // the scenario's on Megatron's layouts (a split, sharding not full); else true
};

// Candidates left out, by reason ("the global batch does not divide over data x micro-batch size").
using SkipCounts = std::map<std::string, std::int64_t>;

// The candidates of `gpus` GPUs training `global_batch` samples per iteration (checkpointing none; the search tries
// the heavier ones), counting the skipped ones into `skipped`.
std::vector<LayoutChoice> layout_choices(const LayoutSpace& space, std::int64_t gpus, std::int64_t global_batch,
                                         SkipCounts& skipped);

// The scenario's own layout at `gpus` holding `global_batch`, when it is one of the space's kind (no gpipe
// schedule, no HSDP shard group) and valid there; the search simulates it first, so that its answer is never slower
// than what the user wrote.
std::optional<LayoutChoice> own_layout(const LayoutSpace& space, std::int64_t gpus, std::int64_t global_batch);

// The choice as the scenario's parallelism section.
ParallelismConfig parallelism_of(const LayoutChoice& choice);
// The overrides that make a scenario run the choice: the whole parallelism section and the batch.
std::vector<std::string> overrides_of(const LayoutChoice& choice, bool global_batch_key);
// "TP8 PP16 VP2 DP64 CP1 optimizer b1 m32 +selective"
std::string label_of(const LayoutChoice& choice);

}  // namespace syncsim::planner
