#include "recompute_share.hpp"

#include <vector>

namespace syncsim::run {

std::vector<bool> ResolvedScenario::recomputed() const {
  const ActivationCheckpointing checkpointing = scenario_->parallelism.activation_checkpointing.value;
  if (chakra_ || checkpointing == ActivationCheckpointing::none) return std::vector<bool>(model_.layers().size());
  return recomputed_layers(model_, checkpointing);
}

double ResolvedScenario::recompute_fraction(const LayerTimes& times) const {
  const std::vector<bool> again = recomputed();
  SimTime recompute;
  SimTime all;
  for (std::size_t l = 0; l < times.forward.size(); ++l) {
    if (l < again.size() && again[l]) recompute += times.forward[l];
    all += times.forward[l] + times.backward[l];
  }
  return all > SimTime::zero() ? recompute.seconds() / all.seconds() : 0.0;
}

void split_recompute(TrainingReport& report, const ResolvedScenario& context, const LayerTimes& layers) {
  const double fraction = context.recompute_fraction(layers);
  if (fraction <= 0) return;
  for (WorkerReport& w : report.per_worker) w.recompute = w.compute.scaled(fraction);
}

}  // namespace syncsim::run
