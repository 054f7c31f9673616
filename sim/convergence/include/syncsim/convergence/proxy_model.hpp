#pragma once
// ProxyModel: the learning problem's model — its parameters, per-sample gradients and evaluation — behind one
// interface, so that the replay does not care which it trains.
//
//   logistic  multinomial logistic regression: logits = W x + b (W: classes x features), softmax cross-entropy;
//             starts from zero
//   mlp       one hidden layer of tanh units: logits = W2 tanh(W1 x + b1) + b2; starts from Glorot-uniform
//             weights drawn from the seed and zero biases
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "syncsim/convergence/gradient_sum.hpp"
#include "syncsim/convergence/synthetic_dataset.hpp"
#include "syncsim/scenario/convergence_config.hpp"

namespace syncsim::convergence {

struct Evaluation {
  double loss = 0;      // mean cross-entropy (nats)
  double accuracy = 0;  // fraction classified right
};

// One parameter tensor in the parameter vector: a matrix of rows x cols (row-major), or a vector (cols 1,
// matrix false), as gradient compression sees it.
struct ParameterTensor {
  std::size_t offset = 0;
  std::size_t rows = 0;
  std::size_t cols = 1;
  bool matrix = false;
};

class ProxyModel {
 public:
  virtual ~ProxyModel() = default;
  virtual std::size_t parameter_count() const = 0;
  // The parameter vector's tensors, in order, covering it.
  virtual std::vector<ParameterTensor> tensors() const = 0;
  virtual std::vector<double> initial_parameters(std::uint64_t seed) const = 0;
  // Adds the gradient of sample i's loss at `params` to `sum`. Returns false, adding nothing, when a component
  // is not finite or reaches GradientSum::kMaxComponent: training has diverged.
  virtual bool accumulate_gradient(std::span<const double> params, const Dataset& data, std::int64_t i,
                                   GradientSum& sum) = 0;
  // Mean loss and accuracy over the whole set (loss is infinite when the parameters are not finite).
  virtual Evaluation evaluate(std::span<const double> params, const Dataset& data) = 0;
};

std::unique_ptr<ProxyModel> make_proxy_model(const ConvergenceConfig& config);

}  // namespace syncsim::convergence
