#pragma once
// The proxy's data: a Gaussian mixture drawn from the scenario's seed. Class c has mean mu_c, whose entries are
// N(0, separation^2 / (2 D)) so that two class means lie about `separation` noise standard deviations apart
// whatever the dimension D; a sample of class y is mu_y + N(0, I). Labels are uniform. The held-out set comes
// from the same mixture with its own random stream. Features are clamped to +-2^19 (unreachable in practice), so
// that a logistic gradient, at most |x| per component, always fits GradientSum's range.
#include <cstdint>
#include <vector>

#include "syncsim/scenario/convergence_config.hpp"

namespace syncsim::convergence {

struct Dataset {
  std::int64_t features = 0;
  std::int64_t classes = 0;
  std::vector<double> x;  // samples x features, row-major
  std::vector<std::int32_t> y;

  std::int64_t size() const { return static_cast<std::int64_t>(y.size()); }
  const double* sample(std::int64_t i) const { return x.data() + i * features; }
};

struct SyntheticData {
  Dataset train;
  Dataset eval;
};

SyntheticData make_synthetic_data(const ConvergenceConfig& config, std::uint64_t seed);

}  // namespace syncsim::convergence
