#include "syncsim/training/sparse_exchange.hpp"

namespace syncsim {

SparseExchange sparse_exchange(const EmbeddingTable& table, std::int64_t batch, std::int64_t element_bytes) {
  SparseExchange out;
  const std::int64_t lookups = batch * table.lookups;
  out.lookups = static_cast<double>(lookups);
  out.unique_rows = expected_unique_rows(table, lookups);
  const auto row_bytes = static_cast<double>(kEmbeddingIdBytes + table.dim * element_bytes);
  out.push_bytes = out.unique_rows * row_bytes;
  out.pull_bytes = out.unique_rows * row_bytes;
  return out;
}

double sparse_update_bytes(double rows, std::int64_t dim, const MemoryRule& rule, std::int64_t element_bytes) {
  return rows * static_cast<double>(dim * (element_bytes + 2 * rule.per_element) + 2 * rule.per_row);
}

}  // namespace syncsim
