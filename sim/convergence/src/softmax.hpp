#pragma once
// Softmax cross-entropy shared by the proxy models: probabilities from logits (max-subtracted, so large logits do
// not overflow), the loss of one label, and the predicted class (lowest index on ties).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>

#include "syncsim/convergence/proxy_model.hpp"

namespace syncsim::convergence {

// Turns `logits` into probabilities in place; false when a logit is not finite. Sets `log_total` to
// log(sum exp(logits)) when given (the loss needs it, the gradient does not).
inline bool softmax_in_place(std::span<double> logits, double* log_total = nullptr) {
  const double top = *std::max_element(logits.begin(), logits.end());
  if (!std::isfinite(top)) return false;
  double total = 0;
  for (double& v : logits) {
    if (!std::isfinite(v)) return false;
    v = std::exp(v - top);
    total += v;
  }
  for (double& v : logits) v /= total;
  if (log_total != nullptr) *log_total = top + std::log(total);
  return true;
}

// Adds one sample's cross-entropy and correctness, given its logits (overwritten).
struct LossTally {
  double loss = 0;
  std::int64_t correct = 0;

  void add(std::span<double> logits, std::int32_t label) {
    const auto predicted = std::max_element(logits.begin(), logits.end()) - logits.begin();
    const double label_logit = logits[static_cast<std::size_t>(label)];
    double log_total = 0;
    // -log p(label); infinite when a logit is not finite.
    loss += softmax_in_place(logits, &log_total) ? log_total - label_logit : std::numeric_limits<double>::infinity();
    if (predicted == label) ++correct;
  }
};

// Mean loss and accuracy over `data`; forward(x) must fill `logits` for the sample x.
template <typename Forward>
Evaluation evaluate_dataset(const Dataset& data, std::span<double> logits, Forward&& forward) {
  LossTally tally;
  for (std::int64_t i = 0; i < data.size(); ++i) {
    forward(data.sample(i));
    tally.add(logits, data.y[static_cast<std::size_t>(i)]);
  }
  const double n = static_cast<double>(data.size());
  return {tally.loss / n, static_cast<double>(tally.correct) / n};
}

}  // namespace syncsim::convergence
