#pragma once
// memory_check: does one GPU's share of the model fit in its memory, and by how much does it miss?
//
// One data-parallel replica without a layout:
//
//   weights      = P x w        w: 4 bytes (fp32, tf32) or 2 (fp16, bf16 and the scaled precisions: the 16-bit
//                               working copy); a scaled precision (fp8, ...) adds its GEMM weights' low-precision
//                               copies, as is and transposed: 2 x operand_bytes per such parameter (not under full
//                               sharding: torchao's Float8Linear casts the weights in each forward)
//   gradients    = P x w
//   optimizer    = P x k        k: optimizer_state_bytes (optimizer.hpp) — FP32 master weights under mixed
//                               precision plus the moments; Adam: 8 (fp32) or 12 (mixed)
//   activations  = B x (saved_elements x e + saved_mask_bytes)      e: 4 (fp32, tf32) or 2 (fp16, bf16)
//
// With Adam this is ZeRO's 16 bytes per parameter in both cases (4 + 4 + 8, or 2 + 2 + 12; Rajbhandari et al.,
// SC'20, §3.1). A MemoryLayout divides it as the frameworks do (docs/compute.md, "Memory by layout"):
//
//   pipeline p   the layers cut into p contiguous stages as pipeline_chunk_ranges cuts them (pipeline_split.hpp: a
//                transformer's blocks evenly, as Megatron builds them, or as MemoryLayout::split says; otherwise the
//                largest stage as small as it can be); every stage is checked and the report is the fullest one
//                (MemoryReport::stage)
//   tensor t     a stage's parameters, gradients, optimizer state and activations / t (Megatron's tensor
//                parallelism with sequence parallelism, which splits the activations the layer norms keep too;
//                the norms' own few parameters are counted split as well)
//   context c    activations / c (each rank keeps its share of the sequence)
//   sharding     ZeRO over s ranks: optimizer (ZeRO-1) divides the optimizer state by s, gradients (ZeRO-2)
//                the gradients too, full (ZeRO-3, FSDP FULL_SHARD) the weights as well, plus the two largest
//                layers' weights gathered whole (the layer computing and the one prefetched); under a pipeline
//                (p > 1) full sharding keeps each chunk gathered and its gradients whole through the iteration
//                (torchtitan's default there), so at peak it holds what optimizer does
//   in flight    a stage keeps the activations of the forward passes it has run and not yet run backward: at its
//                fullest, the warm-up's and one more. 1F1B: stage i min(p - i, m) of m micro-batches; GPipe all m;
//                interleaved over v chunks (Megatron's schedules.py): min(2 (p - i - 1) + (v - 1) p + 1, m v)
//                passes of one chunk each, in the schedule's order (chunk 0 for micro-batches 0..p-1, then chunk
//                1, ...): the first stage keeps p (1 + (p - 1) / (p v)) micro-batches' worth when m >= p, Korthikanti
//                et al.'s factor (MLSys'23, §4.2). Each stage holds chunks i, i + p, ... of the p x v cut
//   expert e     the routed experts' layers / e (each rank holds experts / e of them), their sharded state over
//                shards / e ranks (the expert data-parallel group)
//   checkpointing  full: every block keeps only its input (s x h per sample, Korthikanti et al.'s 2sbhL/t bytes
//                at 16 bits), plus one block's whole activations while backward recomputes it (once, not per
//                micro-batch in flight); selective_op: its input and the outputs of the layers it does not
//                recompute (recomputed_layers) and their masks, plus the same one block; selective under flash
//                attention keeps what none keeps. Needs blocks.
//
// The framework (MemoryLayout::framework) decides three terms, each as its code does (docs/compute.md, "Memory as
// the allocator reports it"):
//
//   megatron     tensor, pipeline, context and expert layouts, ZeRO-1 as its distributed optimizer and ZeRO-2 as
//                Megatron-FSDP's optim_grads: gradients are accumulated in an FP32 main-grad buffer (4 bytes a
//                parameter, whole on every rank under ZeRO-1: Megatron's arguments.py turns
//                accumulate_allreduce_grads_in_fp32 on for bf16; sharded with the optimizer state under ZeRO-2,
//                reduce-scattered after every micro-batch), the distributed optimizer
//                shards the FP32 master weights and moments over data x context ranks (intra_dp_cp_group), and the
//                vocabulary-parallel cross entropy upcasts the 16-bit logits to FP32 in place of a softmax
//                (cross_entropy.py): beside the kept FP32 copy only the 16-bit logits, 2 bytes a logit
//   pytorch      DDP, ZeRO and FSDP without a layout, FSDP (ZeRO-3) beside one as torchtitan runs it (sharded over
//                data x context, its dp_shard_cp mesh): gradients in the working precision (under a pipeline whole
//                and in FP32: FSDP2 accumulates the micro-batches' unsynced gradients in its reduce dtype); the loss
//                upcasts the logits and calls cross_entropy, whose backward holds two more FP32 tensors of the
//                logits' size beside the kept log-softmax (8 bytes a logit; torchtitan's train.py), or under tensor
//                parallelism loss_parallel, whose op-by-op backward holds three (12 bytes); and ColwiseParallel keeps
//                its all-gathered input whole (in FP8 under torchao's Float8ColwiseParallel)
//
// The loss's buffers live only at the loss; backward's recomputation of a checkpointed block comes later, so the
// peak holds the larger of the two. To the tensors the allocator model (allocator_model.hpp) adds the cuBLAS
// workspaces (allocated), the fragmentation reserve (reserved) and, outside the allocator, the CUDA context and
// NCCL's buffers for each communicator of more than one rank (tensor, context, pipeline, data, and Megatron's
// data x context group), and Transformer Engine's userbuffers under tp_comm_overlap. The verdict compares the
// device's total (reserved + context + NCCL + userbuffers) with the datasheet's capacity.
#include <cstdint>
#include <utility>
#include <vector>

#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/compute/model_spec.hpp"
#include "syncsim/compute/optimizer.hpp"
#include "syncsim/compute/pipeline_split.hpp"
#include "syncsim/compute/precision.hpp"
#include "syncsim/core/units.hpp"

namespace syncsim {

// What ZeRO shards across data-parallel ranks (`parallelism.sharding`): nothing, the optimizer state (ZeRO-1),
// also the gradients (ZeRO-2), or also the weights (ZeRO-3 = FSDP FULL_SHARD).
enum class ShardingLevel { none, optimizer, gradients, full };

// What a transformer recomputes in backward instead of keeping (`parallelism.activation_checkpointing`): nothing;
// the attention core (Megatron's selective recomputation, Korthikanti et al., which flash attention's kernel
// already does: with it selective keeps and costs what none does); torchtitan's op-level selective checkpointing
// (selective_op: each block keeps its input, every other matrix product's output — the first, third, ... in the
// block's order — and the attention kernel's, and recomputes the rest); or every block but its input (full).
enum class ActivationCheckpointing { none, selective, selective_op, full };

// How the pipeline orders its micro-batches (`parallelism.schedule`); memory tells 1F1B from GPipe.
enum class PipelineSchedule { one_f_one_b, interleaved, gpipe };

// Whose buffers the memory is laid out in (see above): PyTorch's (DDP, ZeRO, FSDP) or Megatron's (its layouts).
enum class MemoryFramework { pytorch, megatron };

struct MemoryLayout {
  std::int64_t tensor = 1;
  std::int64_t pipeline = 1;
  std::int64_t context = 1;
  ShardingLevel sharding = ShardingLevel::none;
  std::int64_t shards = 1;         // ranks the sharded state is divided over (the shard group)
  std::int64_t micro_batches = 1;  // per iteration, through the pipeline
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  std::int64_t virtual_stages = 1;  // model chunks per stage under the interleaved schedule
  ActivationCheckpointing checkpointing = ActivationCheckpointing::none;
  std::int64_t expert = 1;  // expert parallelism: the routed experts' weights split this many ways
  std::int64_t data = 1;    // data-parallel ranks (for the communicators; `shards` divides the state)
  MemoryFramework framework = MemoryFramework::pytorch;
  PipelineSplit split{};  // which blocks each stage holds; unset: evenly (pipeline_chunk_ranges)
  // PyTorch's loss under torch.compile (model.compile_loss): it keeps the 16-bit logits, not their FP32 log-softmax,
  // and its backward writes the 16-bit gradient in one kernel (w bytes a logit each way).
  bool compiled_loss = false;
  // Megatron's sequence parallelism (RankSplit::sequence_parallel); without it every tensor rank keeps the residual
  // stream's activations whole.
  bool sequence_parallel = true;
  // FP8 parameters under a scaled precision with the optimizer state sharded (parallelism.fp8_all_gather beside
  // sharding optimizer or gradients: Megatron's --fp8-param-gather, NeMo's fp8_params, Transformer Engine's
  // fp8_model_init): the scaled GEMMs' weights are held in FP8 only, as is and transposed, with no 16-bit copy.
  bool fp8_params = false;
  // Megatron's gradient buffer in FP32 (grad_reduce_in_fp32, its default with bf16); false: in the 16-bit type.
  bool fp32_gradients = true;
  // Transformer Engine's userbuffers under tp_comm_overlap (Megatron's layouts): its communication buffers, allocated
  // outside the caching allocator (sim/run's userbuffers_bytes); zero without them. With them TE's cuBLAS workspace
  // is repeated for its GEMM streams (initialize_ub: 3).
  Bytes userbuffers{0};
};

// One GPU at its peak. allocated = weights + gradients + optimizer_state + activations + loss_buffers + workspaces
// (torch.cuda.max_memory_allocated); reserved = allocated + fragmentation (max_memory_reserved); total = reserved +
// cuda_context + nccl_buffers + userbuffers (what nvidia-smi shows), the number the verdict compares with the
// capacity.
struct MemoryReport {
  Bytes weights;
  Bytes gradients;
  Bytes optimizer_state;
  Bytes activations;   // kept for backward by the passes in flight, plus one recomputed block under checkpointing
  Bytes loss_buffers;  // the loss's transient logit buffers, beyond the recomputed block (never live with them)
  Bytes workspaces;    // cuBLAS (and Transformer Engine) workspaces
  Bytes allocated;
  Bytes fragmentation;
  Bytes reserved;
  Bytes cuda_context;
  Bytes nccl_buffers;
  Bytes userbuffers;               // Transformer Engine's communication buffers (MemoryLayout::userbuffers)
  std::int64_t communicators = 0;  // NCCL communicators of more than one rank
  MemoryFramework framework = MemoryFramework::pytorch;
  Bytes total;
  Bytes capacity;
  bool fits = false;
  Bytes shortfall;             // total - capacity when it does not fit; zero when it does
  std::int64_t stage = 0;      // the pipeline stage reported (the fullest); 0 without a pipeline
  std::int64_t in_flight = 1;  // forward passes whose activations that stage keeps (of one chunk when interleaved)
};

// Layer ranges [first, last) of `stages` contiguous pipeline stages whose largest forward FLOPs is as small as the
// allowed cuts make it (the pipeline runs at its slowest stage's pace), every stage keeping at least one layer. A
// transformer (ModelSpec::transformer) is cut between blocks only, so its embedding stays with the first block and its
// head with the last. Throws InputError for more stages than layers (blocks).
std::vector<std::pair<std::size_t, std::size_t>> pipeline_stage_ranges(const ModelSpec& model, std::int64_t stages);

// Throws InputError when `model` cannot be checkpointed so: no transformer blocks, or selective recomputation
// without flash attention.
void check_checkpointing(const ModelSpec& model, ActivationCheckpointing checkpointing);

// Per layer, whether backward runs its forward again under `checkpointing`: every block layer under full; under
// selective_op a block's layers but its odd-numbered matrix products (the first, third, ... gemm or gemm_kept layer
// of the block, as torchtitan's every-other-matmul rule counts them) and its attention kernel, whose outputs are kept;
// none otherwise. The model must have passed check_checkpointing.
std::vector<bool> recomputed_layers(const ModelSpec& model, ActivationCheckpointing checkpointing);

// Throws InputError when expert parallelism of `expert` cannot split the model: no routed experts, or a size that
// does not divide them.
void check_experts(const ModelSpec& model, std::int64_t expert);

// Throws InputError when tensor parallelism of `tensor` or context parallelism of `context` cannot split a
// transformer as Megatron splits it: the tensor size must divide the attention heads (each rank computes whole
// heads), and the sequence must divide into 2 x context chunks (the load-balanced causal split). Sizes of 1 always
// pass; a model without blocks is left to the callers that need them. (Key/value heads fewer than the tensor size
// are replicated, as the frameworks that allow it do.)
void check_model_split(const ModelSpec& model, std::int64_t tensor, std::int64_t context);

// Forward passes whose activations pipeline stage `stage` (0-based) of `stages` keeps at its peak: micro-batches,
// or under the interleaved schedule chunk passes of `virtual_stages` chunks (the "in flight" rule above).
std::int64_t in_flight_passes(std::int64_t stage, std::int64_t stages, std::int64_t micro_batches,
                              PipelineSchedule schedule, std::int64_t virtual_stages = 1);

// Throws InputError for a batch below 1, a layout size below 1, more pipeline stages than layers, more
// micro-batches than 2^20, or checkpointing of a model without transformer blocks (selective: without flash
// attention).
MemoryReport memory_check(const ModelSpec& model, const GpuSpec& gpu, std::int64_t batch, Precision precision,
                          Optimizer optimizer, const MemoryLayout& layout = {});

}  // namespace syncsim
