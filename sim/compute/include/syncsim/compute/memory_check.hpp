#pragma once
// memory_check: does one data-parallel replica fit in a GPU's memory, and by how much does it miss?
//
//   weights      = P x w        w: 4 bytes (fp32, tf32) or 2 (fp16, bf16: the 16-bit working copy)
//   gradients    = P x w
//   optimizer    = P x k        k: optimizer_state_bytes (optimizer.hpp) — FP32 master weights under mixed
//                               precision plus the moments; Adam: 8 (fp32) or 12 (mixed)
//   activations  = B x (saved_elements x e + saved_mask_bytes)      e: 4 (fp32, tf32) or 2 (fp16, bf16)
//
// With Adam this is ZeRO's 16 bytes per parameter in both cases (4 + 4 + 8, or 2 + 2 + 12; Rajbhandari et al.,
// SC'20, §3.1). Not counted: the CUDA context and framework reserve (a few hundred MiB), allocator fragmentation,
// GEMM workspaces, transient buffers such as DDP's gradient buckets, and the input batch — so "fits" is an upper
// bound on what really fits, and a shortfall is a lower bound on the real one. The capacity is the datasheet's.
#include <cstdint>

#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/compute/model_spec.hpp"
#include "syncsim/compute/optimizer.hpp"
#include "syncsim/compute/precision.hpp"
#include "syncsim/core/units.hpp"

namespace syncsim {

struct MemoryReport {
  Bytes weights;
  Bytes gradients;
  Bytes optimizer_state;
  Bytes activations;
  Bytes total;
  Bytes capacity;
  bool fits = false;
  Bytes shortfall;  // total - capacity when it does not fit; zero when it does
};

// Throws InputError for a batch below 1.
MemoryReport memory_check(const ModelSpec& model, const GpuSpec& gpu, std::int64_t batch, Precision precision,
                          Optimizer optimizer);

}  // namespace syncsim
