// ResolvedScenario's pace (chip_spread.hpp): which GPUs wait for each other's compute, and the layer times at the
// slowest one's pace.
#include <algorithm>

#include "resolved_scenario.hpp"
#include "syncsim/collectives/collective_runner.hpp"

namespace syncsim::run {

std::int64_t ResolvedScenario::paced_gpus() const {
  const TrainingConfig& t = scenario_->training;
  // Asynchronous workers each go at their own pace; the others wait on every GPU in the long run (SSP's bound and
  // local SGD's averaging hold the fast ones back), hybrid's groups on their own members.
  if (t.strategy.value == StrategyKind::async) return 1;
  if (t.strategy.value != StrategyKind::hybrid) return workers_;
  if (t.group_size) return std::clamp<std::int64_t>(t.group_size->value, 1, workers_);
  const auto hosts = host_groups(*topology_, static_cast<std::size_t>(workers_));
  return hosts.empty() ? workers_ : static_cast<std::int64_t>(hosts.front().size());
}

LayerTimes ResolvedScenario::layer_times(RankSplit split, double pace) const {
  try {
    LayerTimes times = layer_times_at(batch(), split);
    if (pace != 1) {
      for (SimTime& f : times.forward) f = f.scaled(pace);
      for (SimTime& b : times.backward) b = b.scaled(pace);
    }
    return times;
  } catch (const SimTimeOverflow& e) {
    throw compute_overflow(e, "a layer's compute time");
  }
}

}  // namespace syncsim::run
