#pragma once
// A recommendation scenario's host-memory tiers (training/embedding_tiers.hpp) against its hardware: each GPU's share
// of its node's host memory and its host link, both from the GPU's catalog entry (gpu_spec.hpp), checked when any
// table's compute_kernel puts it in host memory, and the memory report's host columns.
#include <optional>

#include "resolved_scenario.hpp"
#include "syncsim/run/recommendation_memory.hpp"
#include "syncsim/training/embedding_sharding.hpp"

namespace syncsim::run {

// The GPU's share of its reference node's host memory: the node's over its GPUs; nullopt without a reference node.
std::optional<Bytes> host_memory_per_gpu(const GpuSpec& gpu);

// The host link a miss crosses (the GPU's PCIe per direction). Throws InputError at model.embedding_sharding for a GPU
// whose catalog entry has none, naming the table that needs it.
Bandwidth host_link(const ResolvedScenario& context, const EmbeddingPlacement& placement);

// Throws InputError at the key of the table (model.embedding_sharding.NAME, or its default) when a GPU's host share
// cannot hold the host-memory tables placed on it, naming the GPU, its tables and the bytes; or when the GPU has no
// host memory figure at all. Nothing when every table is fused.
void check_host_memory(const ResolvedScenario& context, const EmbeddingPlacement& placement, const MemoryRule& rule);

// The memory report's tier columns: each table's host bytes and hit rate, each GPU's host share and the fullest one.
void add_host_memory(RecommendationMemory& memory, const ResolvedScenario& context, const EmbeddingPlacement& placement,
                     const MemoryRule& rule);

}  // namespace syncsim::run
