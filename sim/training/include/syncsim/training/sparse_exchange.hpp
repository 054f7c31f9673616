#pragma once
// Embedding tables on parameter servers: what one worker's sparse pull and push carry for one table in one
// iteration, and what a server's update of those rows costs (docs/recommendation.md, "Embeddings on parameter
// servers").
//
// A worker's batch of B samples looks up L ids per sample in a table of R rows of d: n = B·L ids, of which
// U = expected_unique_rows(table, n) are distinct (recommendation_model.hpp: uniform, Zipf or a touched share).
// The worker deduplicates its ids before it talks to the servers (as XDL, Persia and TorchRec's embedding
// caches do), so every exchange is about U rows, never about n lookups nor R rows:
//
//   push   U ids (8 bytes, int64) and U gradient rows of d elements of e bytes      U·(8 + d·e)
//   pull   U ids asked for and U rows of d elements sent back                        U·(8 + d·e)
//
// The engine carries each pull as one transfer server -> worker of those bytes (the ids of the request folded
// into the reply: a request of 8·U bytes is small beside the rows). With the rows hashed over k servers (the
// `even` partition: every table split row-wise over the servers) each server gets U / k of them.
//
// A server's update of U rows is one pass over them at its memory bandwidth, the optimizer's step traffic as
// optimizer.hpp counts it (read the weight, the gradient and each state, write the weight and each state back):
//
//   bytes moved = U·d·(e + 2·per_element) + 2·U·per_row
//
// with per_element and per_row the sharded MemoryRule of the embedding optimizer (embedding_sharding.hpp):
// row-wise Adagrad in fp32, d = 128: 128·(4 + 8) + 8 = 1,544 bytes a row.
#include <cstdint>

#include "syncsim/compute/recommendation_model.hpp"
#include "syncsim/training/embedding_sharding.hpp"

namespace syncsim {

// With the tables on the servers (`training.parameter_servers`), where the dense part's gradients go: an AllReduce
// among the workers (the default: XDL's and Persia's hybrid, the dense network data parallel) or the same servers.
enum class DenseExchange { allreduce, servers };

// The tables' consistency on the servers: synchronous (a worker's next batch reads rows that hold every worker's
// last update) or asynchronous (the next batch's rows are pulled while this batch computes, so they miss this
// iteration's updates: one iteration stale, Persia's hybrid training, Lian et al., KDD 2022).
enum class EmbeddingConsistency { sync, async };

// Bytes of one embedding id on the wire (int64, as TorchRec's KeyedJaggedTensor carries them).
inline constexpr std::int64_t kEmbeddingIdBytes = 8;

struct SparseExchange {
  double lookups = 0;      // n = B·L ids the batch reads
  double unique_rows = 0;  // U, after deduplication
  double push_bytes = 0;   // U·(8 + d·e)
  double pull_bytes = 0;   // U·(8 + d·e)
};

// One worker's exchange with the servers for `table` at a batch of `batch` samples and `element_bytes` per element.
SparseExchange sparse_exchange(const EmbeddingTable& table, std::int64_t batch, std::int64_t element_bytes);

// Memory bytes a server moves to update `rows` rows of `dim` (see above).
double sparse_update_bytes(double rows, std::int64_t dim, const MemoryRule& rule, std::int64_t element_bytes);

}  // namespace syncsim
