#pragma once
// allocator_model: what a training process holds on a GPU besides its tensors, as PyTorch's caching allocator and
// the libraries beside it report it (docs/compute.md, "Memory as the allocator reports it"; the sources in
// validation/sources/memory.md). memory_check.hpp adds these terms to the tensors' bytes.
//
//   inside the allocator (torch.cuda.max_memory_allocated and max_memory_reserved count them):
//     cuBLAS workspace   one per (handle, stream) that runs GEMMs, allocated through the caching allocator:
//                        32 MiB on sm90 (CUBLAS_WORKSPACE_CONFIG ":4096:8"), 8 MiB + 128 KiB on the others
//                        (":4096:2:16:8"): PyTorch's aten/src/ATen/cuda/CublasHandlePool.cpp. Megatron's Transformer
//                        Engine layers keep their own, 32 MiB + 1 KiB on sm >= 90, 4 MiB before
//                        (transformer_engine/pytorch/cpp_extensions/gemm.py, get_cublas_workspace)
//     fragmentation      reserved - allocated. A step that allocates and frees tensors of changing sizes leaves
//                        free blocks its later requests do not fit: GMLake (Guo et al., ASPLOS'24) measured the
//                        caching allocator's fragmentation at 15 % of reserved memory on average over eight LLMs
//                        trained with recomputation, sharded (ZeRO-3) or offloaded state. syncsim applies that
//                        share to the memory a step allocates and frees (activations, transient buffers, the
//                        gathered layers) when the run recomputes (activation checkpointing) or gathers and frees
//                        its layers (ZeRO-3, FSDP); otherwise each micro-batch frees and reallocates the same sizes,
//                        and the reserve is the allocated peak. The state allocated once (weights, gradients,
//                        optimizer state) is never freed, so it leaves no holes.
//   outside the allocator (nvidia-smi sees them, torch.cuda does not):
//     CUDA context       400 MB with lazy module loading (CUDA >= 11.7, PyTorch's default): PyTorch's maintainers in
//                        pytorch/pytorch#109888 ("around 400MB") and #107667 (~300 MB; > 1,000 MB before lazy
//                        loading). No per-generation figure is published; every GPU takes this one.
//     NCCL buffers       per communicator and channel, one ring connection's FIFOs per protocol: LL 512 KiB,
//                        LL128 4,800 KiB, Simple 4 MiB (NCCL_BUFFSIZE) = 9.19 MiB (NCCL src/init.cc,
//                        computeBuffSizes), for each of the ring's 2 peers (the NCCL maintainers in NVIDIA/nccl#986:
//                        "Ring ... only has 2 connections regardless of the scale"), over 24 channels (NCCL's ring
//                        search on 8 H100s: 12 rings, duplicated to 24 channels, NVIDIA/nccl#1367). One
//                        communicator: 24 x 2 x 9.19 MiB = 441 MiB.
#include <cstdint>

#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/core/units.hpp"

namespace syncsim {

// GMLake's average fragmentation of the caching allocator: (reserved - allocated) / reserved.
inline constexpr double kCachingAllocatorFragmentation = 0.15;

// PyTorch's cuBLAS workspace for one (handle, stream) on `gpu`: 32 MiB on compute capability 9.0, else 8 MiB + 128
// KiB (a GPU that does not say its compute capability takes the latter).
Bytes cublas_workspace(const GpuSpec& gpu);

// Transformer Engine's own cuBLAS workspace (Megatron's layers): 32 MiB + 1 KiB from compute capability 9.0, else 4
// MiB.
Bytes transformer_engine_workspace(const GpuSpec& gpu);

// The CUDA context: 400 MB on every GPU.
Bytes cuda_context(const GpuSpec& gpu);

// NCCL's ring buffers for `communicators` communicators of more than one rank: 441 MiB each.
Bytes nccl_buffers(std::int64_t communicators);

// The reserve that holds `allocated` bytes, `churned` of which a step allocates and frees: allocated +
// churned x f / (1 - f), f = kCachingAllocatorFragmentation, when `fragmenting`; allocated otherwise.
Bytes reserved_bytes(Bytes allocated, Bytes churned, bool fragmenting);

}  // namespace syncsim
