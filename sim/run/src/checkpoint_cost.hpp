#pragma once
// What a checkpoint costs a job, and how often to take one (docs/faults.md, "Goodput").
//
//   size       the model state the memory model places per rank: weights (with a scaled precision's low-precision
//              copies) + optimizer state (FP32 master weights and moments); the job's checkpoint is the whole
//              model's once (replicas are deduplicated, as PyTorch DCP and Megatron's distributed checkpoints do)
//   write      size / min(storage_bandwidth, hosts x storage_bandwidth_per_node); a restore reads it back alike
//   stall      synchronous: the whole write; asynchronous: each rank copies its own state to host memory
//              (per-rank size / the host link's bandwidth) and the upload runs beside training
//
// Young's first-order optimum (Young 1974) and Daly's higher-order one (Daly 2006, eq. 37), with s the stall and
// M the mean time between interruptions:
//
//   young = sqrt(2 s M)
//   daly  = sqrt(2 s M) (1 + sqrt(s / 2M) / 3 + (s / 2M) / 9) - s     (s < 2M; M otherwise)
#include <cstdint>

#include "syncsim/core/units.hpp"

namespace syncsim::run {

struct CheckpointCost {
  double write_seconds = 0;
  double stall_seconds = 0;
  double restore_seconds = 0;
};

struct CheckpointStorage {
  Bandwidth aggregate;
  Bandwidth per_node;
  Bandwidth host_copy;  // device to host, per GPU
};

CheckpointCost checkpoint_cost(Bytes total, Bytes per_rank, std::int64_t hosts, const CheckpointStorage& storage,
                               bool async);

double young_interval(double stall_seconds, double mtbf_seconds);
double daly_interval(double stall_seconds, double mtbf_seconds);

}  // namespace syncsim::run
