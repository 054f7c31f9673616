#pragma once
// A GPU profile: the GPU as `syncsim-bench-nccl --compute` measured it, read from the results.json it writes (its
// "compute" section; docs/calibration.md). The measured numbers replace the datasheet's:
//
//   peak per precision  the fastest GEMM timed at that precision (square cuBLAS GEMMs, 2mnk / time)
//   memory bandwidth    the copy kernel's rate (each byte read once and written once)
//   memory size, compute capability, NVLink
//                       the catalog's, for the device name the profile reports ("NVIDIA H200"); for a device the
//                       catalog does not know the caller gives the memory size, and the rest stays unknown
//
// These are rates the GPU reached, not datasheet ceilings, so a scenario that uses a profile starts from efficiency 1
// (resolved_scenario: model.efficiency, model.step_time or model.profile still apply on top). A "gemm" entry with M,
// N and K (the benchmark's square sizes and its shape sweep, in any precision it ran: fp8 too) is kept as a
// MeasuredGemm (GpuSpec::measured), and the sustained loop's "windows" say how much of its quiet rate a GEMM keeps
// under a training-like load: every peak is scaled by that (at most 1).
//
// A scenario that runs kernels by shape (model.kernels) on a profiled GPU takes measured_kernel_gpu instead: the
// catalog's GPU of that name (datasheet peaks, SM count, attention rates, board power), its kernel model anchored on
// the profile's own measurements in place of the published ones:
//
//   gemm_core           fitted to the measured BF16 shapes (gemm_fit.hpp), quiet as they were timed
//   scaled_gemm_ratio   the measured FP8 shapes' fitted constant over BF16's (FP8's achievable fraction over BF16's)
//   streaming_fraction  the copy kernel's rate over the datasheet bandwidth (memory-bound kernels)
//   sustained_matmul    the sustained loop's fraction; without the loop, the catalog's published one: the kernel
//                       model scales the GEMMs and flash attention by it (compute-bound, on the same clock)
//
//   GpuSpec h200 = read_gpu_profile("validation/measurements/2026-11-29-1xH200/results.json", std::nullopt);
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "syncsim/compute/gpu_spec.hpp"

namespace syncsim {

// Throws InputError at the file when it cannot be read, is not JSON, has no "compute" section (a results.json from a
// run without --compute), no fp32 GEMM, a rate that is not a positive finite number, or a device the catalog does
// not know and no `memory`. The spec's name is the catalog name of the device, or its reported name.
GpuSpec read_gpu_profile(const std::filesystem::path& path, std::optional<Bytes> memory);
GpuSpec parse_gpu_profile(std::string_view json, const std::string& source, std::optional<Bytes> memory);

// The kernel-model view of a profiled GPU (above); a GPU without measurements comes back as it is. Throws InputError
// for a device the catalog does not know or gives no SM count or BF16 peak for.
GpuSpec measured_kernel_gpu(const GpuSpec& profiled);

}  // namespace syncsim
