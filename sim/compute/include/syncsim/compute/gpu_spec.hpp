#pragma once
// GpuSpec: what the compute model needs to know about a GPU — peak FLOP/s per precision, memory bandwidth and
// memory size — plus the built-in catalog of datasheet values.
//
// Peaks are the datasheet's dense figures: tensor-core peaks for tf32/fp16/bf16 WITHOUT the 2:4 structured
// sparsity doubling that datasheets mark with "*", and the ordinary (non-tensor) FP32 peak for fp32. For fp16 on
// GeForce cards the figure is FP16 with FP32 accumulate (what mixed-precision training uses), half the FP16-
// accumulate figure. A precision a GPU cannot run has no peak (std::nullopt); GPUs without TF32 tensor cores run
// "tf32" as plain FP32, so their tf32 peak is their fp32 peak.
//
//   GpuSpec a100 = find_gpu("a100-80gb");                      // catalog, case-insensitive aliases
//   GpuSpec mine = make_gpu_spec("my-gpu", {.fp32 = 20e12, .fp16 = 300e12},
//                                Bandwidth::from_gb_per_s(2000), Bytes{80LL << 30});
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/compute/precision.hpp"
#include "syncsim/core/units.hpp"

namespace syncsim {

// FLOP/s per precision; fp32 is required, the others are optional (nullopt: the GPU cannot run it). The scaled
// formats' peaks are the dense tensor-core rates of their matrix products (precision.hpp): a GPU has mxfp8, nvfp4
// or mxfp4 only where its tensor cores apply the block scales themselves (Blackwell, CDNA 4).
struct PrecisionPeaks {
  double fp32 = 0;
  std::optional<double> tf32 = std::nullopt;
  std::optional<double> fp16 = std::nullopt;
  std::optional<double> bf16 = std::nullopt;
  std::optional<double> fp8 = std::nullopt;
  std::optional<double> mxfp8 = std::nullopt;
  std::optional<double> nvfp4 = std::nullopt;
  std::optional<double> mxfp4 = std::nullopt;
};

// The BF16 maximum achievable matmul throughput of a GPU as a fraction of its dense BF16 peak, and the GEMM shape
// (M x N x K) it was measured at: the kernel model (kernel_model.hpp) sets its per-GPU constant so that its shape
// factors reproduce this one measurement.
struct BestGemm {
  double fraction = 0;
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
};

// Flash attention's forward throughput at head dimension 128 and a long (16k) sequence, without a causal mask, as a
// fraction of the dense BF16 peak: `fused` the kernel Transformer Engine runs (cuDNN's), `eager` the one PyTorch's
// scaled_dot_product_attention picks (FlashAttention-2). nullopt: no published figure.
struct FlashAttentionRates {
  std::optional<double> fused = std::nullopt;
  std::optional<double> eager = std::nullopt;
};

// One GEMM a GPU profile timed (gpu_profile.hpp: its "gemm" entries that give M, N and K): what the kernel model is
// anchored on when a scenario runs kernels by shape on a profiled GPU.
struct MeasuredGemm {
  Precision precision = Precision::bf16;
  double m = 0;
  double n = 0;
  double k = 0;
  double flops_per_second = 0;  // 2·M·N·K / the measured time
};

// What a GPU profile measured beyond its peaks: the GEMMs of every shape, the copy kernel's rate, and how much of
// its quiet rate a GEMM keeps in the benchmark's sustained, training-like loop (nullopt when that loop did not run).
struct GpuMeasurements {
  std::vector<MeasuredGemm> gemms;
  Bandwidth copy;
  std::optional<double> sustained = std::nullopt;
  // Set by measured_kernel_gpu: how well the fitted GEMM constant explains the BF16 shapes (gemm_fit.hpp).
  std::size_t fitted_shapes = 0;
  double fit_rms_error = 0;
  double fixed_seconds = 0;
  std::optional<double> fitted_scaled_ratio = std::nullopt;  // from measured FP8 shapes (else the published ratio)
};

struct GpuSpec {
  std::string name;
  PrecisionPeaks peaks;
  Bandwidth memory_bandwidth;
  Bytes memory;
  // CUDA compute capability x 10 (70 V100, 75 Turing, 80 A100, 89 Ada, 90 Hopper); nullopt for an inline GPU
  // that does not say. NCCL's tuning model keys some limits on it (latency_model.hpp, nccl_busbw_cap).
  std::optional<int> compute_capability = std::nullopt;
  // The GPU-to-GPU fabric from the datasheet: NVLink (AMD: Infinity Fabric) bandwidth per GPU and direction, summed
  // over its links (datasheets print both directions: 900 GB/s for an H100 SXM is 450 each way), and the GPUs one
  // such domain joins as sold (8 on an HGX board, 72 in a GB200 NVL72 rack, 2 for an NVLink-bridged pair). nullopt
  // for PCIe-only parts and inline GPUs. `syncsim validate` builds a log's NVLink from them (log_system.hpp).
  std::optional<Bandwidth> nvlink_bandwidth = std::nullopt;
  std::optional<int> nvlink_domain_gpus = std::nullopt;
  // The reference node the GPU is sold in (the DGX of its generation): network bandwidth per GPU (one NIC each) and
  // the host PCIe per direction. nullopt where there is no reference node. Every command fills a dgx topology's
  // missing rates from them (run/gpu_node.hpp).
  std::optional<Bandwidth> node_nic_bandwidth = std::nullopt;
  std::optional<Bandwidth> node_pcie_bandwidth = std::nullopt;
  // That node's host (DDR) memory, shared by its nvlink_domain_gpus GPUs; nullopt without a reference node.
  std::optional<Bytes> node_host_memory = std::nullopt;
  // How much less of its peak a scaled-format GEMM reaches than a BF16 one on this GPU: the maximum achievable
  // matmul throughput measured in FP8 as a fraction of the FP8 peak, over the same in BF16 (0.883 on an H100: 1,403
  // of 1,979 TFLOP/s against 795 of 989). The compute model's efficiency stands for BF16 kernels; a scaled GEMM
  // runs at efficiency x this ratio. nullopt where no measurement is published (the peaks then stand as they are).
  // The FP4 formats take the FP8 ratio: no FP4 measurement is published yet. validation/sources/kernels.md, 1a.
  std::optional<double> scaled_gemm_ratio = std::nullopt;
  // What the kernel model needs (kernel_model.hpp; sources in gpu_kernel_data.cpp): streaming multiprocessors
  // (AMD: compute units), the tile scheduler's unit of parallelism; the BF16 best GEMM; flash attention's rates;
  // the board power the sustained clocks are specified at, which cluster.gpu.power_limit caps. nullopt where not
  // published: the layer kinds that need them run on the constant-efficiency roofline.
  std::optional<int> multiprocessors = std::nullopt;
  std::optional<BestGemm> best_gemm = std::nullopt;
  FlashAttentionRates flash_attention = {};
  std::optional<double> board_power_watts = std::nullopt;
  // What a matmul that saturates the board keeps of its burst rate: best_gemm and the flash-attention rates are
  // short bursts at the boost clock, and a training step is one long saturated run, whose clock settles lower to
  // stay inside the board power (the maximum sustainable over the maximum achievable matmul FLOPS). The kernel
  // model runs every tensor-core kernel at it; nullopt where not published (the burst rates then stand).
  std::optional<double> sustained_matmul = std::nullopt;
  // A profiled GPU's own anchors for the kernel model (gpu_profile.hpp, measured_kernel_gpu), in place of the
  // published ones: the GEMM constant fitted to the measured shapes (best_gemm's role) and the fraction of the
  // datasheet bandwidth the copy kernel reached (kStreamingFraction's). nullopt: the published anchors.
  std::optional<double> gemm_core = std::nullopt;
  std::optional<double> streaming_fraction = std::nullopt;
  // Set on a GPU read from a profile: what it measured (the measured_kernel_gpu view starts from these).
  std::optional<GpuMeasurements> measured = std::nullopt;

  // FLOP/s at `precision`, or nullopt when the GPU has no such arithmetic. For a scaled precision this is the
  // matrix products' peak; the rest of the work runs at peak(companion_precision(p)).
  std::optional<double> peak(Precision precision) const;
  // As peak(), but throws InputError naming the GPU and the precisions it does support. A scaled precision also
  // needs its companion (bf16).
  double require_peak(Precision precision) const;
  // The precisions the GPU can train in, in kAllPrecisions' order ("fp32, tf32, fp16, bf16, fp8").
  std::string supported_precisions() const;
};

// An inline GPU definition: throws InputError unless every given number is positive and finite.
GpuSpec make_gpu_spec(std::string name, PrecisionPeaks peaks, Bandwidth memory_bandwidth, Bytes memory);

// One catalog entry: the spec, the names it also answers to, and where its numbers come from.
struct GpuCatalogEntry {
  GpuSpec spec;
  std::vector<std::string_view> aliases;
  std::string_view source;
};

// The built-in catalog, in a fixed order (oldest first).
std::span<const GpuCatalogEntry> gpu_catalog();
// By canonical name or alias, ignoring case, '-', '_' and spaces ("a100_80gb", "RTX 4090"). Throws InputError
// listing the canonical names for an unknown name, and the candidates for an ambiguous family ("A100").
GpuSpec find_gpu(std::string_view name);

}  // namespace syncsim
