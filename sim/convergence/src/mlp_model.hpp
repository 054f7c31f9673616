#pragma once
#include "syncsim/convergence/proxy_model.hpp"

namespace syncsim::convergence {

// Two-layer perceptron with tanh hidden units (proxy_model.hpp). Parameters: W1 (hidden x features), b1,
// W2 (classes x hidden), b2, each row-major.
class MlpModel final : public ProxyModel {
 public:
  MlpModel(std::int64_t features, std::int64_t hidden, std::int64_t classes);

  std::size_t parameter_count() const override;
  std::vector<ParameterTensor> tensors() const override;
  std::vector<double> initial_parameters(std::uint64_t seed) const override;
  bool accumulate_gradient(std::span<const double> params, const Dataset& data, std::int64_t i,
                           GradientSum& sum) override;
  Evaluation evaluate(std::span<const double> params, const Dataset& data) override;

 private:
  // Fills hidden_ (tanh activations) and logits_ for one sample.
  void forward(std::span<const double> params, const double* x);

  std::size_t features_;
  std::size_t hidden_units_;
  std::size_t classes_;
  std::size_t b1_, w2_, b2_;  // offsets in the parameter vector
  std::vector<double> hidden_;
  std::vector<double> logits_;
  std::vector<double> hidden_delta_;
};

}  // namespace syncsim::convergence
