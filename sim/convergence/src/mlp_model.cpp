#include "mlp_model.hpp"

#include <cmath>

#include "softmax.hpp"
#include "syncsim/core/rng.hpp"

namespace syncsim::convergence {

namespace {

constexpr std::uint64_t kInitStream = 0xC0'0010;

}  // namespace

MlpModel::MlpModel(std::int64_t features, std::int64_t hidden, std::int64_t classes)
    : features_(static_cast<std::size_t>(features)),
      hidden_units_(static_cast<std::size_t>(hidden)),
      classes_(static_cast<std::size_t>(classes)),
      b1_(hidden_units_ * features_),
      w2_(b1_ + hidden_units_),
      b2_(w2_ + classes_ * hidden_units_),
      hidden_(hidden_units_),
      logits_(classes_),
      hidden_delta_(hidden_units_) {}

std::size_t MlpModel::parameter_count() const {
  return b2_ + classes_;
}

std::vector<ParameterTensor> MlpModel::tensors() const {
  return {{.offset = 0, .rows = hidden_units_, .cols = features_, .matrix = true},
          {.offset = b1_, .rows = hidden_units_},
          {.offset = w2_, .rows = classes_, .cols = hidden_units_, .matrix = true},
          {.offset = b2_, .rows = classes_}};
}

std::vector<double> MlpModel::initial_parameters(std::uint64_t seed) const {
  // Glorot-uniform weights keep tanh units out of saturation at the start; zero biases.
  std::vector<double> p(parameter_count(), 0.0);
  Rng rng = Rng(seed).fork(kInitStream);
  const double limit1 = std::sqrt(6.0 / static_cast<double>(features_ + hidden_units_));
  const double limit2 = std::sqrt(6.0 / static_cast<double>(hidden_units_ + classes_));
  for (std::size_t i = 0; i < b1_; ++i) p[i] = limit1 * (2 * rng.uniform() - 1);
  for (std::size_t i = w2_; i < b2_; ++i) p[i] = limit2 * (2 * rng.uniform() - 1);
  return p;
}

void MlpModel::forward(std::span<const double> params, const double* x) {
  for (std::size_t h = 0; h < hidden_units_; ++h) {
    const double* w = params.data() + h * features_;
    double a = params[b1_ + h];
    for (std::size_t f = 0; f < features_; ++f) a += w[f] * x[f];
    hidden_[h] = std::tanh(a);
  }
  for (std::size_t c = 0; c < classes_; ++c) {
    const double* w = params.data() + w2_ + c * hidden_units_;
    double v = params[b2_ + c];
    for (std::size_t h = 0; h < hidden_units_; ++h) v += w[h] * hidden_[h];
    logits_[c] = v;
  }
}

bool MlpModel::accumulate_gradient(std::span<const double> params, const Dataset& data, std::int64_t i,
                                   GradientSum& sum) {
  const double* x = data.sample(i);
  forward(params, x);
  if (!softmax_in_place(logits_)) return false;
  logits_[static_cast<std::size_t>(data.y[static_cast<std::size_t>(i)])] -= 1.0;  // d loss / d logits
  double largest_delta = 0;
  for (std::size_t h = 0; h < hidden_units_; ++h) {
    double back = 0;
    for (std::size_t c = 0; c < classes_; ++c) back += params[w2_ + c * hidden_units_ + h] * logits_[c];
    hidden_delta_[h] = back * (1 - hidden_[h] * hidden_[h]);
    largest_delta = std::max(largest_delta, std::abs(hidden_delta_[h]));
  }
  double largest_x = 1;  // the bias gradients are the deltas themselves
  for (std::size_t f = 0; f < features_; ++f) largest_x = std::max(largest_x, std::abs(x[f]));
  // Checked before anything is added, so that a diverged sample leaves the sum as it was.
  if (!(largest_delta * largest_x < GradientSum::kMaxComponent)) return false;
  for (std::size_t c = 0; c < classes_; ++c) {
    const double delta = logits_[c];
    sum.add_scaled(w2_ + c * hidden_units_, delta, hidden_.data(), hidden_units_);
    sum.add(b2_ + c, delta);
  }
  for (std::size_t h = 0; h < hidden_units_; ++h) {
    const double delta = hidden_delta_[h];
    sum.add_scaled(h * features_, delta, x, features_);
    sum.add(b1_ + h, delta);
  }
  return true;
}

Evaluation MlpModel::evaluate(std::span<const double> params, const Dataset& data) {
  return evaluate_dataset(data, logits_, [&](const double* x) { forward(params, x); });
}

}  // namespace syncsim::convergence
