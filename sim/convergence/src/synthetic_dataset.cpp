#include "syncsim/convergence/synthetic_dataset.hpp"

#include <algorithm>
#include <cmath>

#include "syncsim/convergence/gradient_sum.hpp"
#include "syncsim/core/rng.hpp"

namespace syncsim::convergence {

namespace {

// Streams forked from the seed; fixed, so that adding a use of the seed elsewhere cannot change the data.
constexpr std::uint64_t kMeansStream = 0xC0'0001;
constexpr std::uint64_t kTrainStream = 0xC0'0002;
constexpr std::uint64_t kEvalStream = 0xC0'0003;

constexpr double kMaxFeature = GradientSum::kMaxComponent / 2;

Dataset draw(const std::vector<double>& means, std::int64_t features, std::int64_t classes, std::int64_t count,
             Rng rng) {
  Dataset d;
  d.features = features;
  d.classes = classes;
  d.x.resize(static_cast<std::size_t>(count * features));
  d.y.resize(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    const auto label = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(classes)));
    d.y[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(label);
    for (std::int64_t f = 0; f < features; ++f) {
      // A mean within 100 standard deviations (separation <= 100) plus N(0, 1): never near the bound, but the
      // models' gradients rely on it, so it is enforced rather than assumed.
      const double value = means[static_cast<std::size_t>(label * features + f)] + rng.normal();
      d.x[static_cast<std::size_t>(i * features + f)] = std::clamp(value, -kMaxFeature, kMaxFeature);
    }
  }
  return d;
}

}  // namespace

SyntheticData make_synthetic_data(const ConvergenceConfig& config, std::uint64_t seed) {
  const Rng root(seed);
  Rng means_rng = root.fork(kMeansStream);
  const double spread = config.separation / std::sqrt(2.0 * static_cast<double>(config.features));
  std::vector<double> means(static_cast<std::size_t>(config.classes * config.features));
  for (double& m : means) m = spread * means_rng.normal();
  return {draw(means, config.features, config.classes, config.train_samples, root.fork(kTrainStream)),
          draw(means, config.features, config.classes, config.eval_samples, root.fork(kEvalStream))};
}

}  // namespace syncsim::convergence
