#include "syncsim/training/tensor_partition.hpp"

#include <fmt/format.h>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

std::vector<std::size_t> place_tensors(const std::vector<std::int64_t>& tensor_bytes, std::size_t servers,
                                       TensorPartition partition) {
  if (servers == 0) throw InputError("parameter servers: no servers to place tensors on");
  std::vector<std::size_t> server_of;
  std::vector<std::int64_t> load(servers, 0);
  for (std::size_t t = 0; t < tensor_bytes.size(); ++t) {
    std::size_t chosen = t % servers;
    if (partition == TensorPartition::greedy) {
      chosen = 0;
      for (std::size_t j = 1; j < servers; ++j) {
        if (load[j] < load[chosen]) chosen = j;  // strictly fewer bytes: ties stay with the lower index
      }
    }
    load[chosen] += tensor_bytes[t];
    server_of.push_back(chosen);
  }
  return server_of;
}

ShardPlan plan_shards(const std::vector<std::int64_t>& tensor_bytes,
                      const std::vector<std::vector<std::size_t>>& bucket_tensors, std::size_t servers,
                      TensorPartition partition) {
  if (servers == 0) throw InputError("parameter servers: no servers to place tensors on");
  ShardPlan plan;
  if (partition != TensorPartition::even) plan.server_of = place_tensors(tensor_bytes, servers, partition);
  // Byte counts add up in integers and are divided once, so `even` gives S / k exactly as a plain split does.
  std::vector<std::int64_t> model_bytes(servers, 0);
  std::vector<std::int64_t> model_messages(servers, 0);
  for (std::size_t b = 0; b < bucket_tensors.size(); ++b) {
    if (bucket_tensors[b].empty()) throw InputError(fmt::format("parameter servers: bucket {} has no tensors", b));
    std::vector<std::int64_t> bytes(servers, 0);
    std::vector<std::int64_t> messages(servers, 0);
    for (const std::size_t t : bucket_tensors[b]) {
      if (t >= tensor_bytes.size()) {
        throw InputError(fmt::format("parameter servers: bucket {} names tensor {} of {}", b, t, tensor_bytes.size()));
      }
      const std::size_t first = partition == TensorPartition::even ? 0 : plan.server_of[t];
      const std::size_t last = partition == TensorPartition::even ? servers : first + 1;
      for (std::size_t j = first; j < last; ++j) {
        bytes[j] += tensor_bytes[t];
        ++messages[j];
      }
    }
    std::vector<ServerShard>& shards = plan.buckets.emplace_back(servers);
    for (std::size_t j = 0; j < servers; ++j) {
      // even: every server holds the whole bucket's bytes / k
      shards[j].bytes = partition == TensorPartition::even
                            ? static_cast<double>(bytes[j]) / static_cast<double>(servers)
                            : static_cast<double>(bytes[j]);
      shards[j].messages = messages[j];
      model_bytes[j] += bytes[j];
      model_messages[j] += messages[j];
    }
  }
  plan.model.resize(servers);
  for (std::size_t j = 0; j < servers; ++j) {
    plan.model[j].bytes = partition == TensorPartition::even
                              ? static_cast<double>(model_bytes[j]) / static_cast<double>(servers)
                              : static_cast<double>(model_bytes[j]);
    plan.model[j].messages = model_messages[j];
  }
  return plan;
}

}  // namespace syncsim
