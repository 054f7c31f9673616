#pragma once
#include "syncsim/convergence/proxy_model.hpp"

namespace syncsim::convergence {

// Multinomial logistic regression (proxy_model.hpp). Parameters: W (classes x features, row-major), then b.
class LogisticModel final : public ProxyModel {
 public:
  LogisticModel(std::int64_t features, std::int64_t classes);

  std::size_t parameter_count() const override;
  std::vector<ParameterTensor> tensors() const override;
  std::vector<double> initial_parameters(std::uint64_t seed) const override;
  bool accumulate_gradient(std::span<const double> params, const Dataset& data, std::int64_t i,
                           GradientSum& sum) override;
  Evaluation evaluate(std::span<const double> params, const Dataset& data) override;

 private:
  void logits(std::span<const double> params, const double* x);

  std::size_t features_;
  std::size_t classes_;
  std::vector<double> logits_;  // scratch
};

}  // namespace syncsim::convergence
