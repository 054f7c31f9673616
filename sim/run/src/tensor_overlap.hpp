#pragma once
// The tensor-parallel collectives of one transformer block on one rank, as Megatron-LM runs them with sequence
// parallelism: an all-gather of the sequence-sharded input before each column-parallel group of GEMMs (QKV, FC1)
// and a reduce-scatter of the output after each row-parallel GEMM (the attention projection, FC2). An all-gather
// and a reduce-scatter move what one allreduce moves, so each costs half the simulated allreduce `a` of the
// b x s x h activation, four of them forward and four backward.
//
//   exposed         without overlap, all of them, on the compute stream: 2a forward, 2a backward
//   tp_comm_overlap Transformer Engine's userbuffers: collective i runs in k_i chunks beside its paired GEMM
//                   (time g_i forward, 2 g_i backward: the data- and weight-gradient products), so the GEMM hides
//                   all but the first chunk, unless the collective outlasts it:
//
//                     exposed_i = max(a / 2 / k_i, a / 2 - g_i)
//
//                   all-gathers as a ring exchange of t steps (k = t, the tensor size), peer to peer on the copy
//                   engines; reduce-scatters split into k = 4 pipelined chunks (TE's num_splits) whose reduction
//                   kernels take 20 of an H100's 132 SMs (TE's H100 configurations give 24 to the projection's
//                   and 16 to FC2's): the paired GEMM runs slower by that share while they overlap,
//
//                     slowdown_i = min(a / 2, g_i) x 20 / 132 / (1 - 20 / 132)
//
// Under a scaled precision (fp8, mxfp8, nvfp4, mxfp4) the all-gathers move the GEMMs' quantized operands and the
// reduce-scatters the 16-bit outputs: Transformer Engine fuses the FP8 cast into the norm before the sequence-parallel
// gather and casts the output gradient before gathering it (layernorm_linear.py, base.py grad_output_preprocess,
// with or without userbuffers), and gathers its MXFP8 and NVFP4 tensors likewise (distributed.py); torchao's float8
// tensor parallelism casts the inputs before their gather, its output gradients after (float8_tensor_parallel.py).
// Each collective then costs half the allreduce of its own bytes (gather_allreduce, grad_gather_allreduce).
//
// Megatron's sequence parallelism keeps only the shard of a column-parallel product's input and all-gathers it again
// in backward for the weight gradient (Korthikanti et al. 2022; Megatron-LM's linear layers; Transformer Engine's
// qkv_dgrad and fc1_dgrad userbuffers overlaps), so its backward runs six collectives where the forward runs four:
// one allreduce's worth more, exposed without overlap. With tp_comm_overlap they run as Transformer Engine pairs
// them, each beside one backward GEMM of g_i: at a column-parallel run the input's all-gather beside the data-gradient
// product and the data gradient's reduce-scatter beside the weight-gradient product; at a row-parallel run the output
// gradient's all-gather (a ring exchange) beside both, 2 g_i. PyTorch's tensor parallelism keeps the gathered input
// (keeps_shard false) and pairs each of its four backward collectives with its run's 2 g_i.
//
// The GEMMs pair with the block's runs of consecutive GEMM layers (LayerKind::gemm), which alternate column- and
// row-parallel: QKV, projection, FC1 (gate and up), FC2. A block whose GEMMs do not form those four runs (a MoE
// block's experts and shared experts) spreads its GEMM time evenly over the four collectives. Full recomputation
// runs the forward's collectives again in backward; torchtitan's op-level selective recomputation (selective_op) runs
// the forward's two all-gathers again, beside the same GEMM runs: its policy saves the reduce-scatters' outputs but
// not the gathered inputs the recomputed products need (_save_list in parallelize_llama.py). Source of the
// configuration figures:
// validation/sources/llm-runs.md, "Userbuffers TP-overlap layer names".
#include <cstdint>
#include <optional>
#include <vector>

#include "syncsim/core/sim_time.hpp"

namespace syncsim::run {

struct BlockTensorTime {
  SimTime forward;   // on the compute stream: exposed collectives plus the GEMMs' slowdown
  SimTime backward;  // including the recomputed forward's, under full checkpointing
};

struct BlockTensorInput {
  SimTime allreduce;               // a: one allreduce of the block's activation over the tensor group
  std::int64_t tensor = 1;         // t
  std::vector<SimTime> gemm_runs;  // the block's runs of consecutive GEMM layers, one rank's forward time each
  bool overlap = false;            // parallelism.tp_comm_overlap
  std::int64_t forward_again = 0;  // 1 under full checkpointing
  std::int64_t gathers_again = 0;  // 1 under selective_op: the forward's all-gathers again in backward
  bool keeps_shard = false;        // Megatron's sequence parallelism: the inputs all-gathered again for wgrad
  // The all-gathers' own allreduce-equivalents where they move another type than the reduce-scatters (a scaled
  // precision's quantized activations, below); nullopt: `allreduce`'s. `gather`: the forward's inputs (and their
  // gathers again); `grad_gather`: the backward's output gradients.
  std::optional<SimTime> gather_allreduce = std::nullopt;
  std::optional<SimTime> grad_gather_allreduce = std::nullopt;
};

BlockTensorTime block_tensor_time(const BlockTensorInput& in);

// tp_comm_overlap's pieces, one collective at a time: the chunks k_i of an all-gather (the tensor size) or a
// reduce-scatter (TE's num_splits), and the time on the compute stream of collective i of half-allreduce time `half`
// beside a GEMM of `gemm`: exposed_i, plus slowdown_i for a reduce-scatter.
std::int64_t overlap_chunks(std::int64_t tensor, bool gather);
SimTime overlapped_collective(SimTime half, SimTime gemm, std::int64_t chunks, bool gather);

// Under keeps_shard, the backward collectives of one GEMM run, in the order they run: a column-parallel run's
// all-gather (beside its data-gradient product, g) then reduce-scatter (beside its weight-gradient product, g); a
// row-parallel run's all-gather beside both (2 g). gemm_scale: the GEMM time beside it over the run's forward.
struct BackwardOverlap {
  bool gather = true;
  std::int64_t chunks = 1;
  double gemm_scale = 1;
};
std::vector<BackwardOverlap> backward_overlaps(bool column, std::int64_t tensor);

}  // namespace syncsim::run
