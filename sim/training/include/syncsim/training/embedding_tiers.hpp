#pragma once
// A sharded table's memory tier and what its lookups cost across it (docs/recommendation.md, "Memory tiers"), as
// TorchRec runs its EmbeddingComputeKernel over FBGEMM's table-batched embeddings:
//
//   fused              the shard in GPU memory: hit rate 1, nothing crosses the host link
//   fused_uvm          the shard in host memory (UVM), read in place: hit rate 0, every looked-up row crosses
//   fused_uvm_caching  the shard in host memory with a GPU cache of C = round(f x held rows) rows (f the
//                      cache_load_factor); for a stationary access distribution an LRU or LFU cache holds the hottest
//                      rows, so a lookup hits with h = cache_hit_rate(table, round(f x R)) (recommendation_model.hpp:
//                      Zipf H(fR, s) / H(R, s), uniform f): the ids hashed over the row-wise blocks, each block sees
//                      the table's distribution, so the rate is the table's whatever the sharding
//
// Per iteration, on a rank that performs n = lookup_share x B x L of the table's lookups (embedding_sharding.hpp) with
// shard columns c and weight bytes e:
//
//   forward     the misses fetched into the GPU over the host link:  n x (1 - h) x c x e bytes
//   backward    the updated rows written back (in steady state each miss evicts a row the batch updated; fused_uvm
//               writes every row it read):                          n x (1 - h) x c x e bytes
//
// each at the host link's rate (the GPU's PCIe per direction, gpu_spec.hpp's node_pcie_bandwidth), on the compute
// stream as the lookup kernel waits on it. An upper bound in two ways, both stated: ids are not deduplicated within
// the batch (FBGEMM's prefetch fetches a row once), and no prefetch pipeline hides the fetch behind the previous
// batch (TorchRec's PrefetchTrainPipelineSparseDist does).
#include <cstdint>

#include "syncsim/training/embedding_sharding.hpp"

namespace syncsim {

// The share of table `t`'s lookups served from GPU memory under its kernel (see above).
double tier_hit_rate(const EmbeddingPlacement& placement, std::size_t t);

// Bytes `rank` fetches over its host link for table `t` in one forward pass of `batch` samples per GPU (the same
// bytes are written back in backward); zero for a fused table.
double host_link_bytes(const EmbeddingPlacement& placement, std::size_t t, std::int64_t rank, std::int64_t batch,
                       std::int64_t element_bytes);

// Whether any table lives in host memory.
bool uses_host_memory(const EmbeddingPlacement& placement);

}  // namespace syncsim
