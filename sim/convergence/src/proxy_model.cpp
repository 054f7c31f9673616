#include "syncsim/convergence/proxy_model.hpp"

#include "logistic_model.hpp"
#include "mlp_model.hpp"

namespace syncsim::convergence {

std::unique_ptr<ProxyModel> make_proxy_model(const ConvergenceConfig& config) {
  if (config.problem == ProxyProblem::mlp) {
    return std::make_unique<MlpModel>(config.features, config.hidden, config.classes);
  }
  return std::make_unique<LogisticModel>(config.features, config.classes);
}

}  // namespace syncsim::convergence
