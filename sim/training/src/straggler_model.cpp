#include "syncsim/training/straggler_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/rng.hpp"

namespace syncsim {

StragglerModel::StragglerModel(StragglerSpec spec) : spec_(std::move(spec)) {
  if (!std::isfinite(spec_.sigma) || spec_.sigma < 0) {
    throw InputError("stragglers: sigma must be finite and not negative, got " + std::to_string(spec_.sigma));
  }
  if (!std::isfinite(spec_.normal_min_factor) || spec_.normal_min_factor <= 0) {
    throw InputError("stragglers: normal_min_factor must be positive, got " + std::to_string(spec_.normal_min_factor));
  }
  for (const auto& [rank, slow] : spec_.slow_ranks) {
    if (rank < 0) throw InputError("stragglers: slow rank " + std::to_string(rank) + " is negative");
    if (!std::isfinite(slow) || slow <= 0) {
      throw InputError("stragglers: slow factor of rank " + std::to_string(rank) + " must be positive, got " +
                       std::to_string(slow));
    }
  }
}

std::int64_t StragglerModel::max_slow_rank() const {
  return spec_.slow_ranks.empty() ? -1 : spec_.slow_ranks.rbegin()->first;
}

double StragglerModel::slow_factor(std::int64_t rank) const {
  const auto found = spec_.slow_ranks.find(rank);
  return found == spec_.slow_ranks.end() ? 1.0 : found->second;
}

double StragglerModel::jitter(std::int64_t rank, std::int64_t iteration) const {
  if (spec_.jitter == JitterKind::none || spec_.sigma == 0) return 1.0;
  Rng rng = Rng(spec_.seed).fork(static_cast<std::uint64_t>(rank)).fork(static_cast<std::uint64_t>(iteration));
  const double z = rng.normal();
  const double sigma = spec_.sigma;
  if (spec_.jitter == JitterKind::lognormal) return std::exp(-sigma * sigma / 2 + sigma * z);
  return std::max(spec_.normal_min_factor, 1 + sigma * z);
}

}  // namespace syncsim
