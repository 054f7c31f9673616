#include "checkpoint_cost.hpp"

#include <algorithm>
#include <cmath>

namespace syncsim::run {

CheckpointCost checkpoint_cost(Bytes total, Bytes per_rank, std::int64_t hosts, const CheckpointStorage& storage,
                               bool async) {
  const double rate =
      std::min(storage.aggregate.bytes_per_second,
               static_cast<double>(std::max<std::int64_t>(hosts, 1)) * storage.per_node.bytes_per_second);
  CheckpointCost c;
  c.write_seconds = static_cast<double>(total.value) / rate;
  c.restore_seconds = c.write_seconds;
  c.stall_seconds = async ? static_cast<double>(per_rank.value) / storage.host_copy.bytes_per_second : c.write_seconds;
  return c;
}

double young_interval(double stall_seconds, double mtbf_seconds) {
  return std::sqrt(2 * stall_seconds * mtbf_seconds);
}

double daly_interval(double stall_seconds, double mtbf_seconds) {
  if (stall_seconds >= 2 * mtbf_seconds) return mtbf_seconds;
  const double x = stall_seconds / (2 * mtbf_seconds);
  return young_interval(stall_seconds, mtbf_seconds) * (1 + std::sqrt(x) / 3 + x / 9) - stall_seconds;
}

}  // namespace syncsim::run
