#pragma once
// The `training:` section: how workers synchronize, over what, and for how long.
//
// Which strategy works with which communication (the rest are InputErrors at load time):
//
//   strategy    allreduce   parameter_server   default communication
//   sync        yes         yes                allreduce
//   async       -           yes                parameter_server   (no barrier-free AllReduce exists)
//   ssp         -           yes                parameter_server   (the staleness bound is kept by the servers)
//   local_sgd   yes         -                  allreduce          (averaging every K steps is an AllReduce)
//   hybrid      -           yes                parameter_server   (AllReduce inside groups is implied)
#include <cstdint>
#include <optional>
#include <string_view>

#include "syncsim/collectives/algorithm.hpp"
#include "syncsim/collectives/latency_model.hpp"
#include "syncsim/core/sim_time.hpp"
#include "syncsim/core/units.hpp"
#include "syncsim/scenario/located.hpp"
#include "syncsim/training/bucket_plan.hpp"
#include "syncsim/training/gradient_compression.hpp"
#include "syncsim/training/server_placement.hpp"
#include "syncsim/training/sparse_exchange.hpp"
#include "syncsim/training/tensor_partition.hpp"

namespace syncsim {

enum class StrategyKind { sync, async, ssp, local_sgd, hybrid };
enum class Communication { allreduce, parameter_server };

std::string_view to_string(StrategyKind strategy);
std::string_view to_string(Communication communication);
std::string_view to_string(ServerPlacement placement);
std::string_view to_string(TensorPartition partition);
std::string_view to_string(ServerHost host);
std::string_view to_string(DenseExchange exchange);
std::string_view to_string(EmbeddingConsistency consistency);

// Whether the strategy can run over the communication (the table above).
bool compatible(StrategyKind strategy, Communication communication);
Communication default_communication(StrategyKind strategy);

struct ParameterServerConfig {
  // Servers; colocated ones run on ranks 0..count-1.
  Located<std::int64_t> count;
  ServerPlacement placement = ServerPlacement::dedicated;
  // How the parameters are split among them (tensor_partition.hpp): evenly, or whole tensors round robin or
  // greedily by bytes, as TensorFlow's device setter places variables.
  TensorPartition partition = TensorPartition::even;
  // Software cost of one push or pull message at each end (tensor_partition.hpp counts the messages).
  SimTime per_message;
  // A dedicated server's NIC; nullopt: the same as a GPU's network link in the topology.
  std::optional<Bandwidth> nic_bw;
  // What applies the updates, and (cpu) the host's memory bandwidth; nullopt: kDefaultHostMemoryBandwidth.
  ServerHost host = ServerHost::gpu;
  std::optional<Bandwidth> host_memory_bw;
  // Server-side cost of applying one update: gradient bytes per second, or a fixed time per update. At most one
  // is set; with neither the optimizer's step traffic at the host's memory bandwidth (the GPU's, or the CPU's).
  std::optional<Bandwidth> apply_rate;
  std::optional<SimTime> apply_time;
  // A recommendation model's (docs/recommendation.md, "Embeddings on parameter servers"): its tables live on the
  // servers; its dense part goes over AllReduce or to the same servers; its tables are updated synchronously or
  // asynchronously. Refused for any other model. Not given: no position (where.source empty).
  Located<DenseExchange> dense = {};
  Located<EmbeddingConsistency> embeddings = {};
};

// Backward is 4% slower once gradient synchronization has started beside it: the mean over four models of the
// drop PyTorch's DDP benchmark measured from one V100 to two, less the slower of two chips' pace (chip_spread.hpp):
// ResNet-50/101 and ResNeXt-50/101 imply 0.037, 0.035, 0.052 and 0.038 (docs/accuracy.md).
inline constexpr double kDefaultOverlapSlowdown = 0.04;

struct TrainingConfig {
  Located<StrategyKind> strategy;
  Located<Communication> communication;  // defaulted from the strategy when not given
  // AllReduce algorithm; nullopt is `auto` (NCCL's choice per size), or `best` with any_algorithm set.
  Located<std::optional<Algorithm>> algorithm;
  bool any_algorithm = false;
  std::optional<Located<std::int64_t>> channels;  // nullopt: one per rail, as `syncsim collective`
  // nccl by default; calibrated when a calibration file is given and no latency_model is.
  Located<LatencySource> latency_model;
  std::optional<Protocol> protocol;          // nccl latency model only; nullopt: auto
  Bytes bucket_size = kDdpDefaultBucketCap;  // 25 MB (bucket_plan.hpp)
  bool overlap = true;                       // communication overlaps backward
  // The framework's own cost per iteration on the compute stream (DDP's bucket bookkeeping, Horovod's negotiation),
  // and how much slower backward runs while an AllReduce overlaps it (NCCL's kernels hold SMs and memory
  // bandwidth): synchronous AllReduce strategies only (ddp_iteration.hpp). The overhead is 0 by default (a step
  // measured under the framework holds it); the slowdown defaults to kDefaultOverlapSlowdown.
  std::optional<Located<SimTime>> framework_overhead;
  std::optional<Located<double>> overlap_slowdown;
  double overlap_slowdown_or_default() const {
    return overlap_slowdown ? overlap_slowdown->value : kDefaultOverlapSlowdown;
  }
  std::int64_t iterations = 10;                          // measured iterations (>= 1)
  std::int64_t warmup_iterations = 0;                    // run first and left out of the statistics
  std::optional<Located<std::int64_t>> staleness_bound;  // ssp: steps a worker may run ahead (required)
  std::optional<Located<std::int64_t>> sync_every;       // local_sgd: average every K steps (required)
  // hybrid: workers per AllReduce group; nullopt: the GPUs of one node (host).
  std::optional<Located<std::int64_t>> group_size;
  ParameterServerConfig parameter_servers;  // used with communication parameter_server (and hybrid)
  // DDP communication hooks (gradient_compression.hpp): strategy sync over allreduce, plain data parallelism.
  Located<GradientCompression> gradient_compression;
};

}  // namespace syncsim
