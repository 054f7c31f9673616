#include "syncsim/compute/allocator_model.hpp"

#include <cmath>

namespace syncsim {

namespace {

constexpr std::int64_t kKiB = 1024;
constexpr std::int64_t kMiB = 1024 * kKiB;
constexpr int kHopperCapability = 90;
// CublasHandlePool.cpp: ":4096:8" (8 x 4 MiB) on sm90, ":4096:2:16:8" (2 x 4 MiB + 8 x 16 KiB) elsewhere.
constexpr std::int64_t kCublasWorkspaceSm90 = 8 * 4096 * kKiB;
constexpr std::int64_t kCublasWorkspaceOther = 2 * 4096 * kKiB + 8 * 16 * kKiB;
// transformer_engine/pytorch/cpp_extensions/gemm.py: 32 MiB + 1 KiB (alignment) on sm >= 90, 4 MiB before.
constexpr std::int64_t kTeWorkspaceHopper = 32 * kMiB + kKiB;
constexpr std::int64_t kTeWorkspaceOther = 4 * kMiB;
// pytorch/pytorch#109888: the CUDA context with lazy module loading.
constexpr std::int64_t kCudaContextBytes = 400'000'000;
// NCCL src/init.cc, computeBuffSizes: LL 8 lines x 512 threads x 8 steps x 16 B; LL128 120 x 640 x 8 x 8 B; Simple
// NCCL_BUFFSIZE 4 MiB. Two ring peers (nccl#986), 24 channels on 8 H100s (nccl#1367).
constexpr std::int64_t kLlBytes = 8 * 512 * 8 * 16;
constexpr std::int64_t kLl128Bytes = 120 * 640 * 8 * 8;
constexpr std::int64_t kSimpleBytes = 4 * kMiB;
constexpr std::int64_t kRingPeers = 2;
constexpr std::int64_t kNcclChannels = 24;

bool hopper_or_later(const GpuSpec& gpu) {
  return gpu.compute_capability && *gpu.compute_capability >= kHopperCapability;
}

}  // namespace

Bytes cublas_workspace(const GpuSpec& gpu) {
  const bool sm90 = gpu.compute_capability && *gpu.compute_capability == kHopperCapability;
  return Bytes{sm90 ? kCublasWorkspaceSm90 : kCublasWorkspaceOther};
}

Bytes transformer_engine_workspace(const GpuSpec& gpu) {
  return Bytes{hopper_or_later(gpu) ? kTeWorkspaceHopper : kTeWorkspaceOther};
}

Bytes cuda_context(const GpuSpec&) {
  return Bytes{kCudaContextBytes};
}

Bytes nccl_buffers(std::int64_t communicators) {
  return Bytes{communicators * kNcclChannels * kRingPeers * (kLlBytes + kLl128Bytes + kSimpleBytes)};
}

Bytes reserved_bytes(Bytes allocated, Bytes churned, bool fragmenting) {
  if (!fragmenting) return allocated;
  const double f = kCachingAllocatorFragmentation;
  return Bytes{allocated.value +
               static_cast<std::int64_t>(std::ceil(static_cast<double>(churned.value) * f / (1 - f)))};
}

}  // namespace syncsim
