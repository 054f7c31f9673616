#pragma once
// Which parameter server holds which parameters (`training.parameter_servers.partition`), and so what every push
// and pull carries: per gradient bucket and server, the bytes and the messages they travel in.
//
//   even         every tensor is split in k equal slices, slice j on server j (a partitioned variable; today's
//                sharding): server j holds S / k of every bucket, and every tensor is k messages, one per server.
//   round_robin  whole tensors, tensor t on server t mod k, in creation (forward) order: TensorFlow's
//                tf.compat.v1.train.replica_device_setter with its default ps_strategy
//                (_RoundRobinStrategy, python/training/device_setter.py).
//   greedy       whole tensors, in creation order, each on the server with the fewest bytes so far (ties: the
//                lowest index): TensorFlow's GreedyLoadBalancingStrategy with byte_size_load_fn
//                (python/training/device_setter.py, contrib/training/python/training/device_setter.py).
//
// A whole tensor is one message to the one server that holds it. A large tensor therefore makes its server a hot
// spot: with N workers, that server's link carries N x the tensor's bytes in (the pushes) and N x out (the pulls)
// per step, whatever k is; the other servers' links carry less.
//
// Conservation: every tensor is on exactly one server (round_robin, greedy), and per bucket the shards' bytes sum
// to the bucket's bytes (all three).
//
// The tensors are the model's layers that have parameters, one tensor per layer (ModelSpec keeps per-layer
// parameter counts, not the weight and bias apart, which TensorFlow would place as two variables).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace syncsim {

// The scenario's `parameter_servers.partition` (its names: scenario_enums.cpp).
enum class TensorPartition { even, round_robin, greedy };

// What one push (or pull) between one client and one server carries for one bucket. A shard with no messages
// does not exist: nothing of the bucket is on that server.
struct ServerShard {
  double bytes = 0;
  std::int64_t messages = 0;  // tensors (even: tensor slices) travelling in it, each its own message
};

// The shards of a run: per bucket (in push order) and server, and per server its part of the whole model (what an
// asynchronous pull brings back).
struct ShardPlan {
  std::vector<std::vector<ServerShard>> buckets;  // [bucket][server]
  std::vector<ServerShard> model;                 // [server]
  std::vector<std::size_t> server_of;             // per tensor, its server; empty under even (on every server)
};

// Tensor t's server for whole-tensor partitions (round_robin, greedy); `tensor_bytes` in creation order.
std::vector<std::size_t> place_tensors(const std::vector<std::int64_t>& tensor_bytes, std::size_t servers,
                                       TensorPartition partition);

// The shards of `bucket_tensors` (per bucket, the indices of its tensors into `tensor_bytes`) over `servers`
// servers. Throws InputError for no servers, a bucket without tensors, or a tensor index out of range.
ShardPlan plan_shards(const std::vector<std::int64_t>& tensor_bytes,
                      const std::vector<std::vector<std::size_t>>& bucket_tensors, std::size_t servers,
                      TensorPartition partition);

}  // namespace syncsim
