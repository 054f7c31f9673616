#pragma once
// The tensor-parallel collectives of one transformer block on one rank, as Megatron-LM runs them with sequence
// parallelism: an all-gather of the sequence-sharded input before each column-parallel group of GEMMs (QKV, FC1)
// and a reduce-scatter of the output after each row-parallel GEMM (the attention projection, FC2). An all-gather
// and a reduce-scatter move what one allreduce moves, so each costs half the simulated allreduce `a` of the
// b x s x h activation, four of them forward and four backward.
//
//   exposed         without overlap, all of them, on the compute stream: 2a forward, 2a backward
//   tp_comm_overlap collective i runs beside its paired GEMM (time g_i forward, 2 g_i backward: the data- and
//                   weight-gradient products) by one of the frameworks' methods (Transformer Engine's initialize_ub,
//                   PyTorch's symmetric-memory micro-pipelining), its kernels taking n_i of the GPU's S SMs (0 for
//                   the copy engines). Of half = a/2, the GEMM hides what runs beside the part of it that may overlap:
//
//                   exposed_i = first_i + max(0, half - first_i - beside_i')
//
//                   first_i runs beside nothing, the rest beside the part b_i of the GEMM that may overlap it:
//                   chunked        in k_i chunks, each GEMM chunk after its own: first = half/k_i (the first chunk
//                                  before any GEMM, or a reduce-scatter's last after all of it), b = g_i (k_i-1)/k_i
//                   sm_margin      chunked, the whole GEMM run on the S - n_i SMs it leaves (TE's set_sm_margin)
//                   bulk           the whole collective beside a GEMM that does not wait for it: first = 0, b = g_i
//                   ring_exchange  a ring of t - 1 point-to-point exchanges beside t GEMM steps, the first on the
//                                  rank's own shard (TE's split_overlap_ag; PyTorch's all-gather-matmul, and its
//                                  matmul-reduce-scatter, which computes the rank's own chunk last): first = 0,
//                                  b = g_i (t-1)/t
//                   ring_exchange_pairs
//                                  TE's `aggregate`: one exchange with the pair's neighbour first, then t/2 GEMM
//                                  steps of two chunks beside exchanges of two: first = half/(t-1), b = g_i (t-2)/t
//
//                   While the collective's kernels hold their n_i SMs the GEMM runs at (S - n_i)/S of its rate, r:
//                   under sm_margin all of it, slowdown_i = g_i n_i/(S - n_i) and beside_i' = b/r; otherwise only
//                   while they overlap, slowdown_i = n_i/S min(half - first_i, b/r) and beside_i' = b + slowdown_i
//                   (the GEMM wholly at r if the collective outlasts it, else r for the collective's time and then
//                   every SM). Exposed plus slowdown is then the time the pair adds to the GEMM's own.
//
//                   A collective on SMs (n_i > 0) moves no faster than they do: half is at least the rank's share of
//                   the buffer over n_i SMs at NCCL's per-channel ceiling (sm_share_time: 1/t of it where the group's
//                   NVSwitch multicasts, t-1 of t otherwise and for rings).
//
//                   Megatron's layouts run TE's by its userbuffers configuration, layer by layer
//                   (scenario/userbuffers_config.hpp: TE's ub_cfgs, or NeMo 24.07's H100 one under `true`), each
//                   layer's method and keys as TE's initialize_ub reads them: ring_exchange (in pairs under
//                   `aggregate`) on the copy engines unless use_ce is off (then on num_sm SMs, 1 by default);
//                   pipeline in num_splits (4) on num_sm (16) SMs, the whole GEMM on the SMs they leave under
//                   set_sm_margin; bulk on num_sm (16). NeMo's H100 one: forward, the inputs' all-gathers as ring
//                   exchanges, the reduce-scatters pipelined in 4 splits on the SMs they leave, 24 for the
//                   projection's and 16 for FC2's; backward, at the column-parallel runs bulk all-gathers of the
//                   inputs on 4 SMs (QKV) and 2 (FC1) and bulk reduce-scatters of the data gradients on 16 (QKV) and
//                   4 (FC1), at the row-parallel runs ring exchanges of the output gradients, FC2's in pairs. A
//                   pipelined or ring reduce-scatter with fp8_buf under model.precision fp8 moves the FP8 output
//                   (TE's FP8 userbuffer) and costs half the allreduce of those bytes (`fp8_scatter_allreduce`).
//                   TE's ring reduce-scatter's final sum of the partials is a kernel the layer times carry
//                   (userbuffers_sums.cpp). PyTorch's (torchtitan's async TP, torch/distributed/_symmetric_memory)
//                   runs every collective as a ring of copies on the copy engines; its all-gathers first copy the
//                   rank's own shard into the exchange buffer and its reduce-scatters then sum the t partial chunks
//                   they received, memory-bound kernels on the compute stream that the layer times carry
//                   (dtensor_copies.cpp).

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

#include "syncsim/chakra/layout_workload.hpp"
#include "syncsim/compute/model_spec.hpp"
#include "syncsim/core/sim_time.hpp"
#include "syncsim/core/units.hpp"
#include "syncsim/scenario/userbuffers_config.hpp"

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
  double gpu_sms = 132;            // S: the GPU's SMs (an H100's by default)
  // Megatron's (keeps_shard) userbuffers configuration; nullptr: NeMo's H100 one.
  const UserbuffersConfig* userbuffers = nullptr;
  // The all-gathers' own allreduce-equivalents where they move another type than the reduce-scatters (a scaled
  // precision's quantized activations, below); nullopt: `allreduce`'s. `gather`: the forward's inputs (and their
  // gathers again); `grad_gather`: the backward's output gradients.
  std::optional<SimTime> gather_allreduce = std::nullopt;
  std::optional<SimTime> grad_gather_allreduce = std::nullopt;
  // Under model.precision fp8, the allreduce-equivalent of the FP8 activation: what a forward reduce-scatter with
  // fp8_buf moves.
  std::optional<SimTime> fp8_scatter_allreduce = std::nullopt;
  // What one SM takes to move each whole buffer above (one_sm_time): the reduce-scatters', the inputs' all-gathers',
  // the output gradients', the FP8 userbuffer's. An SM-driven collective runs no faster than its SMs move the rank's
  // share of it (sm_share_time, overlapped_collective). Zero: no ceiling.
  struct OneSm {
    SimTime scatter;
    SimTime gather;
    SimTime grad_gather;
    SimTime fp8_scatter;
  } one_sm = {};
  // The tensor group on one NVSwitch that multicasts (NVLink SHARP): Transformer Engine's userbuffers then move
  // each rank's own shard only (sm_share_time).
  bool multicast = false;
};

BlockTensorTime block_tensor_time(const BlockTensorInput& in);

// The layers of each run of consecutive GEMM layers (LayerKind::gemm) in the block [first, last): the runs the
// collectives pair with (QKV, projection, FC1, FC2 in a dense block).
std::vector<std::vector<std::size_t>> block_gemm_runs(const std::vector<Layer>& layers,
                                                      std::pair<std::size_t, std::size_t> block);

// tp_comm_overlap's pieces, one collective at a time: how it runs (above) and its time on the compute stream,
// exposed_i plus slowdown_i, at half-allreduce time `half` beside a GEMM of `gemm` on a GPU of `gpu_sms` SMs.
// (The methods are the Chakra traces' own: syncsim_overlap_method writes them, layout_workload.hpp.)
using chakra::OverlapMethod;
struct OverlapSpec {
  OverlapMethod method = OverlapMethod::chunked;
  std::int64_t chunks = 1;  // k_i; a ring's t
  double sms = 0;           // n_i
  bool fp8_buffer = false;  // a reduce-scatter of TE's FP8 userbuffer (fp8_buf): the FP8 output under fp8
};
//
// A collective whose kernels run on SMs (sms > 0: Transformer Engine's bulk and pipelined overlaps, a ring off the
// copy engines) moves no faster than those SMs do: half is at least `one_sm` / n_i, `one_sm` the time one SM takes
// to move the rank's share (sm_share_time). The copy engines' rings (sms 0) run at the collective's own rate.
SimTime overlapped_collective(SimTime half, SimTime gemm, const OverlapSpec& spec, double gpu_sms,
                              SimTime one_sm = SimTime::zero());
// A ring exchange, whole or in pairs.
bool is_ring(OverlapMethod method);
// The GEMM run (0 QKV, 1 projection, 2 FC1, 3 FC2) a userbuffers layer's collective runs beside, and whether it is
// one of the forward's four.
std::size_t gemm_run(UbLayer layer);
bool forward_layer(UbLayer layer);
// The products the GEMM beside a collective run by `spec` runs as (split_gemms.cpp): one per chunk (a ring's t, t/2
// in pairs, a pipeline's splits), one beside a bulk collective.
std::int64_t gemm_pieces(const OverlapSpec& spec);
// Its parts: the collective's time (half, or its SMs' where they are slower), what it shows on the compute stream,
// and what its SMs take from the GEMM; overlapped_collective is exposed + sm_cost.
struct OverlapCost {
  SimTime collective;
  SimTime exposed;
  SimTime sm_cost;
};
OverlapCost overlap_cost(SimTime half, SimTime gemm, const OverlapSpec& spec, double gpu_sms,
                         SimTime one_sm = SimTime::zero());
// What one SM moving at `per_sm` takes for a whole `message` buffer.
SimTime one_sm_time(Bytes message, Bandwidth per_sm);
// Of `whole` (one_sm_time), what a rank's SMs move for a collective run by `spec` on a tensor group of `tensor`:
// a ring's t - 1 chunks of t; on an NVSwitch that multicasts, the rank's own chunk (Transformer Engine's userbuffers
// store it once to the multicast address, or load it summed by the switch: userbuffers.cu's _mc_ kernels); t - 1 of
// t chunks otherwise, read from or written to each peer.
SimTime sm_share_time(SimTime whole, const OverlapSpec& spec, std::int64_t tensor, bool multicast);

// How Transformer Engine runs `layer`'s collective under `config` (its defaults for what the configuration leaves
// out) on a tensor group of `tensor` (a ring in pairs only where it is even).
OverlapSpec userbuffers_overlap(UbLayer layer, const UserbuffersConfig& config, std::int64_t tensor);

// The forward's collective i of a block (0 and 2 all-gathers, 1 and 3 reduce-scatters), Transformer Engine's by
// `userbuffers` (Megatron's layouts) or, where it is nullptr, PyTorch's.
OverlapSpec forward_overlap(int i, std::int64_t tensor, const UserbuffersConfig* userbuffers);

// Under keeps_shard (Megatron's), the backward collectives of GEMM run `run` (0 QKV, 1 projection, 2 FC1, 3 FC2), in
// the order they run: a column-parallel run's all-gather (beside its data-gradient product, g) then reduce-scatter
// (beside its weight-gradient product, g); a row-parallel run's all-gather beside both (2 g). gemm_scale: the GEMM
// time beside it over the run's forward.
struct BackwardOverlap {
  UbLayer layer = UbLayer::qkv_dgrad;  // TE's name for it
  bool gather = true;
  OverlapSpec spec;
  double gemm_scale = 1;
};
std::vector<BackwardOverlap> backward_overlaps(int run, std::int64_t tensor, const UserbuffersConfig& userbuffers);

// One of a block's userbuffers overlaps under Megatron's layouts, as block_tensor_time times it: TE's layer, how it
// runs, its time at its own rate (half), what its SMs take to move the rank's share on one SM (zero: no ceiling), the
// GEMM beside it and its cost.
struct LayerOverlap {
  UbLayer layer = UbLayer::qkv_fprop;
  OverlapSpec spec;
  SimTime own_rate;
  SimTime one_sm;
  SimTime gemm;
  OverlapCost cost;
};
// What Transformer Engine's userbuffers hold on one GPU for `config` on a tensor group of `tensor`, each of its ten
// layers' buffer of `elements` (s x b / c x h, NeMo's initialize_ub shape) (TE v1.8 initialize_ub and
// comm_gemm_overlap.h): one byte an element for the all-gathers' (qkv_fprop, fc1_fprop, qkv_dgrad, fc1_dgrad,
// proj_dgrad, fc2_dgrad) and for proj_fprop's and fc2_fprop's under fp8_buf when `scaled`, two otherwise (TE's
// buffers are bf16); a ring reduce-scatter holds 2t - 1 chunks of the buffer's t, the rest one buffer.
Bytes userbuffers_bytes(const UserbuffersConfig& config, std::int64_t tensor, bool scaled, double elements);

// The block's ten, the forward's four then the backward's six, once each (a recomputed forward runs the first four
// again); empty without tp_comm_overlap or outside Megatron's layouts (keeps_shard).
std::vector<LayerOverlap> userbuffers_layers(const BlockTensorInput& in);

}  // namespace syncsim::run
