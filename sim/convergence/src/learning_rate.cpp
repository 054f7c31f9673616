#include "syncsim/convergence/learning_rate.hpp"

#include <algorithm>
#include <cmath>

namespace syncsim::convergence {

double learning_rate(const ConvergenceConfig& config, std::int64_t batch, std::int64_t update) {
  const double base_batch = static_cast<double>(config.base_batch.value_or(config.batch_per_worker));
  const double ratio = static_cast<double>(batch) / base_batch;
  double scaled = config.learning_rate;
  if (config.lr_scaling == LrScaling::linear) scaled *= ratio;
  if (config.lr_scaling == LrScaling::sqrt) scaled *= std::sqrt(ratio);
  if (config.warmup_updates == 0) return scaled;
  const double progress = std::min(1.0, static_cast<double>(update) / static_cast<double>(config.warmup_updates));
  return config.learning_rate + (scaled - config.learning_rate) * progress;
}

}  // namespace syncsim::convergence
