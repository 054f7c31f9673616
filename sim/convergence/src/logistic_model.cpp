#include "logistic_model.hpp"

#include "softmax.hpp"

namespace syncsim::convergence {

LogisticModel::LogisticModel(std::int64_t features, std::int64_t classes)
    : features_(static_cast<std::size_t>(features)), classes_(static_cast<std::size_t>(classes)), logits_(classes_) {}

std::size_t LogisticModel::parameter_count() const {
  return classes_ * features_ + classes_;
}

std::vector<ParameterTensor> LogisticModel::tensors() const {
  return {{.offset = 0, .rows = classes_, .cols = features_, .matrix = true},
          {.offset = classes_ * features_, .rows = classes_}};
}

std::vector<double> LogisticModel::initial_parameters(std::uint64_t) const {
  return std::vector<double>(parameter_count(), 0.0);  // the loss is convex: zero is the usual start
}

void LogisticModel::logits(std::span<const double> params, const double* x) {
  const double* bias = params.data() + classes_ * features_;
  for (std::size_t c = 0; c < classes_; ++c) {
    const double* w = params.data() + c * features_;
    double v = bias[c];
    for (std::size_t f = 0; f < features_; ++f) v += w[f] * x[f];
    logits_[c] = v;
  }
}

bool LogisticModel::accumulate_gradient(std::span<const double> params, const Dataset& data, std::int64_t i,
                                        GradientSum& sum) {
  const double* x = data.sample(i);
  logits(params, x);
  if (!softmax_in_place(logits_)) return false;
  // d loss / d logit_c = p_c - [c == y], within [-1, 1], and the data are bounded (synthetic_dataset.hpp).
  logits_[static_cast<std::size_t>(data.y[static_cast<std::size_t>(i)])] -= 1.0;
  for (std::size_t c = 0; c < classes_; ++c) {
    const double delta = logits_[c];
    sum.add_scaled(c * features_, delta, x, features_);
    sum.add(classes_ * features_ + c, delta);
  }
  return true;
}

Evaluation LogisticModel::evaluate(std::span<const double> params, const Dataset& data) {
  return evaluate_dataset(data, logits_, [&](const double* x) { logits(params, x); });
}

}  // namespace syncsim::convergence
