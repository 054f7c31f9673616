#pragma once
// The learning rate of one update that averages `batch` samples, the `update`-th (0-based) of its kind: the
// server's version for asynchronous SGD, the step for synchronous SGD, a worker's own step for local SGD.
//
//   ratio  = batch / base_batch
//   scaled = learning_rate x {1, ratio, sqrt(ratio)}             lr_scaling none, linear, sqrt
//   rate   = learning_rate + (scaled - learning_rate) x min(1, update / warmup_updates)   (warm-up; Goyal et al.)
#include <cstdint>

#include "syncsim/scenario/convergence_config.hpp"

namespace syncsim::convergence {

double learning_rate(const ConvergenceConfig& config, std::int64_t batch, std::int64_t update);

}  // namespace syncsim::convergence
