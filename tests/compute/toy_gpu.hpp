#pragma once
// What the compute tests share: a toy GPU with round numbers, and a memory-bound elementwise layer.
#include <cstdint>
#include <optional>

#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/compute/model_spec.hpp"

namespace syncsim::toy_gpu {

inline constexpr std::int64_t kGiB = std::int64_t{1} << 30;

// 1 TFLOP/s fp32, 10 TFLOP/s fp16, 100 GB/s, 1 GiB unless given.
inline GpuSpec toy(double fp32 = 1e12, double fp16 = 10e12, double bw_gb_per_s = 100) {
  return make_gpu_spec("toy", {.fp32 = fp32, .tf32 = std::nullopt, .fp16 = fp16, .bf16 = std::nullopt},
                       Bandwidth::from_gb_per_s(bw_gb_per_s), Bytes{kGiB});
}

// An elementwise op on a million elements, no weights: 1 FLOP against 2 elements moved each — memory-bound, 8 MB
// per sample at fp32.
inline const Layer kElementwise{
    .name = "relu", .forward_flops = 1'000'000, .activation_elements_moved = 2'000'000, .saved_elements = 1'000'000};

}  // namespace syncsim::toy_gpu
