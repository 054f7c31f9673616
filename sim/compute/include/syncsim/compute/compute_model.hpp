#pragma once
// ComputeModel: how long a GPU takes for each layer's forward and backward, the optimizer step, and reductions
// inside collectives (docs/compute.md).
//
// Per layer, for a batch of B samples at precision p (element size e: 4 bytes for fp32/tf32, 2 for fp16/bf16):
//
//   flops    = B x forward_flops
//   bytes    = e x (weight_elements_read + B x activation_elements_moved)
//   forward  = max(flops / (peak[p] x eff), bytes / (mem_bw x eff)) + kernel_overhead        (roofline)
//   backward = backward_factor x forward
//
//   optimizer step = params x step_bytes(optimizer) / (mem_bw x eff) + kernel_overhead     (optimizer.hpp)
//   reduction rate = mem_bw / 3          (reducing a received chunk reads it and the local one, writes the sum)
//
// Under a scaled precision (fp8, mxfp8, nvfp4, mxfp4; precision.hpp) a block's linear layer (LayerKind::gemm) runs
// as Transformer Engine runs it, everything else at the companion bf16 peak with 2-byte elements:
//
//   flops at peak[p] x scaled_gemm_ratio (gpu_spec.hpp: FP8's measured achievable fraction over BF16's);
//   its operands (weights, input) at operand_bytes(p), its output at 2 bytes
//   + quantize = input elements x (2 + 2 x operand_bytes(p)) / (mem_bw x eff)
//       the input read in bf16 and written in the low format twice, as is and transposed (the two backward
//       products each need one); backward's factor covers the output gradient's quantization likewise; a
//       linear layer that shares its input with the previous one (KernelShape::shares_input) casts nothing where
//       Megatron fuses them (kernels unset or fused), and its own copy under PyTorch's (eager, compiled)
//   optimizer step + params x 2 x operand_bytes(p) / (mem_bw x eff): the new weights' low-precision copies
//
// Kernels by shape (kernel_model.hpp), with options.kernels set (model.kernels: fused | eager | compiled) and no
// efficiency: a layer that carries its kernel shape (a catalog or Hugging Face transformer's) runs as its kernel does
// on one rank of the layout (RankSplit: tensor parallelism splits a column-parallel GEMM's N, a row-parallel one's K
// and the attention heads; context parallelism the tokens; expert parallelism the experts):
//
//   GEMM       forward: 2·M·N·K per group at peak x the tile model's efficiency (M = batch x tokens / context);
//              backward: the input gradient (M x K over N) and the weight gradient (N x K over M), each its own shape
//   attention  forward at peak x the flash kernel's efficiency by head dimension and sequence; backward 2.5x the
//              FLOPs (the scores recomputed) at 0.87 of forward's efficiency (FlashAttention-3's d128 16k rates)
//   the rest   memory-bound: its bytes (x eager_traffic and eager_kernels kernels under model.kernels: eager, x
//              fused_traffic under fused) at kStreamingFraction of the bandwidth (a profiled GPU: its measured
//              copy's fraction, GpuSpec::streaming_fraction); backward_factor x forward
//   power cap  compute-bound rates x (limit / board power)^(1/3): a capped board lowers its clock, and dynamic power
//              goes as frequency x voltage², voltage with frequency (memory-bound kernels keep the HBM clock)
//
// Every layer also costs kernel_overhead per kernel. Otherwise (the default, or with model.efficiency, or a step time
// or GPU profile that sets it) every layer runs on the constant-efficiency roofline, as does a layer without a shape:
//
//   eff = 0.7 (kDefaultEfficiency) — large GEMMs reach 70-80 % of the dense tensor peak and streaming kernels 70-90 %
//     of the memory bandwidth. Checked against NVIDIA's published single-GPU ResNet-50 v1.5 training throughput
//     (DeepLearningExamples, PyTorch, NGC 21.03): the defaults predict 0.76x to 1.21x of it on V100 (FP32, AMP) and
//     A100 (TF32, AMP), where 0.5 predicts 0.54x to 0.86x (tested); on the model-parallel layouts a layer's time is
//     then split evenly over the tensor and context ranks.
//   kernel_overhead = 5 us — launch latency plus the ramp and tail of a kernel in eager PyTorch (launches of
//     3-10 us overlap only partly with the previous kernel's execution).
//   backward_factor = 2 — backward runs two products per forward product (input gradient and weight gradient);
//     it includes the overhead of the backward kernels, twice as many as forward's.
//
// Times are SimTime (integer picoseconds); a model's forward is the exact sum of its layers' forwards.
//
//   ComputeModel gpu(find_gpu("A100-SXM4-80GB"), Precision::fp16);
//   ModelSpec model = find_model("resnet50");
//   SimTime step = gpu.forward(model, 64) + gpu.backward(model, 64) + gpu.optimizer_step(model.params(),
//                                                                                        Optimizer::momentum);
#include <cstdint>
#include <optional>

#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/compute/kernel_model.hpp"
#include "syncsim/compute/model_spec.hpp"
#include "syncsim/compute/optimizer.hpp"
#include "syncsim/compute/precision.hpp"
#include "syncsim/core/sim_time.hpp"
#include "syncsim/core/units.hpp"

namespace syncsim {

// The constant roofline's efficiency when none is given.
constexpr double kDefaultEfficiency = 0.7;
// The fraction of its memory bandwidth a streaming kernel reaches: syncsim's H200 copy kernel 4,156 of 4,800 GB/s
// (validation/measurements/2026-11-29-1xH200), tuned norms and softmax about 0.9 on an H100 (Dao-AILab/quack,
// "Getting Memory-bound Kernels to Speed-of-Light", 2025-07).
constexpr double kStreamingFraction = 0.87;

struct ComputeOptions {
  // Fraction of peak FLOP/s and of memory bandwidth reached, the same for every kernel; a scenario's model.efficiency
  // is in (0, 1], one fitted to a measured step time may be more (step_time_fit.hpp). nullopt: kDefaultEfficiency,
  // or kernels by shape where `kernels` is set.
  std::optional<double> efficiency = std::nullopt;
  SimTime kernel_overhead = SimTime::from_us(5);  // per kernel and per optimizer step
  double backward_factor = 2.0;                   // backward time / forward time (constant roofline, memory-bound)
  // How the framework runs its kernels; set, it turns on kernels by shape (without an efficiency). nullopt: the
  // constant roofline for every layer.
  std::optional<KernelStyle> kernels = std::nullopt;
  // The loss under torch.compile too (model.compile_loss, torchtitan's compile of its loss function): one fused
  // kernel each way in place of eager's upcast, log-softmax and gather.
  bool compiled_loss = false;
  // Megatron's cross_entropy_loss_fusion: its vocabulary-parallel cross entropy as fused functions (3 kernels
  // forward, 1 backward) in place of PyTorch ops (6 and 3), for a run whose loss is Megatron's (megatron_loss).
  bool cross_entropy_loss_fusion = false;
  // The gradient buffer the step accumulates each micro-batch's gradients into holds FP32 (Megatron's main grads,
  // grad_reduce_in_fp32; AMP's FP32 weights' grads; FSDP's reduce in FP32); false: the working precision's.
  bool fp32_gradient_buffer = false;
  std::optional<double> power_limit_watts = std::nullopt;  // a board-power cap below the GPU's board power
};

// The share of a layer one rank of a model-parallel layout runs.
struct RankSplit {
  std::int64_t tensor = 1;
  std::int64_t context = 1;
  std::int64_t expert = 1;
  // Megatron's sequence parallelism: the residual stream's norms, adds and dropouts (KernelShape::sequence_region)
  // split over the tensor group too; without it every tensor rank runs them whole.
  bool sequence_parallel = true;
};

// The share of `layer` one rank runs: `split`, with the tensor group's left out for a layer of the residual stream
// without sequence parallelism.
RankSplit layer_split(const Layer& layer, RankSplit split);

// Which roof bounds a layer, and the two times it is the larger of (without the kernel overhead).
struct Roofline {
  double compute_seconds = 0;
  double memory_seconds = 0;
  double quantize_seconds = 0;  // a scaled GEMM's casts: memory-bound kernels beside the product, added to it
  // Of quantize_seconds, what the forward does not run because the norm before it wrote the quantized input
  // (KernelShape::cast_by_norm); the backward runs the casts as it would, and transposes that input.
  double cast_in_norm_seconds = 0;
  double transpose_seconds = 0;
  bool compute_bound() const { return compute_seconds >= memory_seconds; }
};

// A rank's even share of a whole layer's time: 1 / (tensor x context) of it (the constant roofline's split, and a
// profile's or trace's measured layers).
SimTime rank_share(SimTime whole, RankSplit split);

// The compute clock of `gpu` under a board-power cap, as a fraction of its specified one: (limit / board power)^(1/3)
// (1 without a cap). Throws InputError when the GPU has no board power or the limit is not in (0, board power].
double power_clock_factor(const GpuSpec& gpu, std::optional<double> power_limit_watts);

// Throws InputError when `precision` is scaled and `model` has no layer it would run in the low format (a CNN, a
// layer list that marks no `gemm`): the recipes scale the linear layers of transformer blocks, nothing else.
void check_scaled_layers(const ModelSpec& model, Precision precision);

class ComputeModel {
 public:
  // Throws InputError when the GPU has no arithmetic at `precision` (bf16 on a V100), the efficiency is not in
  // (0, kMaxImpliedEfficiency], the backward factor is not positive, or the kernel overhead is negative.
  ComputeModel(GpuSpec gpu, Precision precision, ComputeOptions options = {});

  const GpuSpec& gpu() const { return gpu_; }
  Precision precision() const { return precision_; }
  const ComputeOptions& options() const { return options_; }

  // Batch sizes must be positive (InputError otherwise). roofline() is the constant-efficiency one.
  Roofline roofline(const Layer& layer, std::int64_t batch) const;
  // One rank's share of the layer (the whole layer by default).
  SimTime forward(const Layer& layer, std::int64_t batch, RankSplit split = {}) const;
  SimTime backward(const Layer& layer, std::int64_t batch, RankSplit split = {}) const;
  // True when `layer` runs on the kernel model rather than the constant roofline.
  bool shaped(const Layer& layer) const;
  // What a GEMM layer's forward product (or, with `input_gradient`, its input-gradient product) on one rank takes
  // longer run as `pieces` products of 1/pieces of its rows each, as the tensor-parallel overlaps split it beside
  // their chunks (split_gemms.cpp): the product's time x (the whole's shape factors over the pieces' - 1), the
  // pieces tiled as each is alone and their waves pooled (KernelModel::pieces_factors). On the constant roofline too:
  // its efficiency is a whole GEMM's, and splitting one costs the same ratio. Zero for one piece, a layer without a
  // shape, a GPU without an SM count.
  SimTime split_gemm_extra(const Layer& layer, std::int64_t batch, RankSplit split, std::int64_t pieces,
                           bool input_gradient) const;
  // The kernel model's tile choice for a GEMM layer's forward product on one rank (shaped() GEMMs only).
  TileChoice forward_tile(const Layer& layer, std::int64_t batch, RankSplit split = {}) const;
  // One kernel that is not a layer (gradient compression's casts, products and selections): the same roofline,
  // for `flops` at the precision's peak and `bytes` at the memory bandwidth, plus the kernel overhead.
  SimTime kernel_time(double flops, double bytes) const;
  // Memory-bound work outside the layers' roofline that moves `bytes` (a copy's reads and writes) in `kernels`
  // kernels, at the rate the layers' memory-bound kernels run: the streaming fraction of the bandwidth under kernels
  // by shape, the efficiency otherwise; plus each kernel's overhead.
  SimTime streaming_time(double bytes, std::int64_t kernels = 1) const;
  SimTime forward(const ModelSpec& model, std::int64_t batch) const;
  SimTime backward(const ModelSpec& model, std::int64_t batch) const;

  SimTime optimizer_step(std::int64_t params, Optimizer optimizer) const;
  // Bytes of received data a rank reduces per second inside a collective (ExecutorOptions::reduction_rate). NCCL
  // fuses the reduction into its streaming copy kernels, which run near the bandwidth peak: no efficiency factor.
  Bandwidth reduction_rate() const;
  // True when `layer` runs its matrix product in the scaled low-precision format (a block's GEMM under fp8, mxfp8,
  // nvfp4 or mxfp4).
  bool runs_scaled(const Layer& layer) const;
  // The kernel model the shaped layers run on, and the share of the bandwidth their memory-bound kernels reach.
  const KernelModel& kernels() const { return kernels_; }
  // Of the bandwidth, what a memory-bound kernel reaches: a profile's measured copy, or kStreamingFraction.
  double streaming_fraction() const { return gpu_.streaming_fraction.value_or(kStreamingFraction); }

 private:
  Roofline kernel_roofline(double flops, double bytes) const;
  Roofline scaled_gemm_roofline(const Layer& layer, double batch) const;
  // Whether the framework runs a linear layer and its siblings as one GEMM (KernelShape::fused_rows).
  bool fused_projections() const;
  // The layer's input is quantized by the norm before it (KernelShape::cast_by_norm), under Transformer Engine.
  bool norm_casts(const Layer& layer) const;
  // The layer's input is cast already, by the fused projection it shares it with (KernelShape::shares_input).
  bool casts_shared_input(const Layer& layer) const;
  SimTime time_of(const Roofline& roofline) const;  // the larger roof plus the kernel overhead
  double efficiency() const { return options_.efficiency.value_or(kDefaultEfficiency); }
  SimTime pass_time(const Layer& layer, std::int64_t batch, RankSplit split, bool backward) const;
  GemmShape gemm_shape(const Layer& layer, double batch, RankSplit split) const;
  SimTime shaped_gemm(const Layer& layer, std::int64_t batch, RankSplit split, bool backward) const;
  SimTime shaped_attention(const Layer& layer, std::int64_t batch, RankSplit split, bool backward) const;
  SimTime shaped_streaming(const Layer& layer, std::int64_t batch, RankSplit split) const;
  // The loss of a Megatron run (fused projections, and not PyTorch's compiled loss): its vocabulary-parallel cross
  // entropy's passes over the FP32 logits (megatron_loss.cpp), the whole layer's.
  bool runs_megatron_loss(const Layer& layer) const;
  SimTime megatron_loss(const Layer& layer, std::int64_t batch, bool backward) const;
  // An embedding's whole-table gradient (KernelShape::dense_table_gradient), zero-filled and added into the gradient
  // buffer: one rank's, per micro-batch (table_gradient.cpp).
  SimTime table_gradient(const Layer& layer, RankSplit split) const;

  GpuSpec gpu_;
  Precision precision_;
  ComputeOptions options_;
  // Declared in this order so that the scaled format is checked first: its error names the format.
  double scaled_peak_flops_;  // the scaled format's x scaled_gemm_ratio (peak_flops_ for an unscaled precision)
  double peak_flops_;         // the companion precision's: every kernel but a scaled GEMM
  KernelModel kernels_;
};

}  // namespace syncsim
