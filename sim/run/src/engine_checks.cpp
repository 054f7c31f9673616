// The refusals the engines of identical ranks share (engines.hpp).
#include <fmt/format.h>

#include "engines.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim::run {

void refuse_what_identical_ranks_lack(const Scenario& s, std::string_view with) {
  const std::string not_yet = fmt::format("not simulated yet {}", with);
  if (s.training.strategy.value != StrategyKind::sync) {
    throw s.training.strategy.error(
        fmt::format("strategy '{}' is {} (sync is)", to_string(s.training.strategy.value), not_yet));
  }
  if (s.training.communication.value != Communication::allreduce) {
    throw s.training.communication.error(fmt::format("parameter servers are {}", not_yet));
  }
  if (s.training.gradient_compression.value.enabled()) {
    throw s.training.gradient_compression.error(
        fmt::format("gradient compression is {} (it compresses DDP's bucket AllReduces)", not_yet));
  }
  if (!s.faults.empty()) throw InputError(fmt::format("faults are {}", not_yet), s.faults[0].where, s.faults[0].key);
  if (!s.degraded_links.empty()) {
    throw InputError(fmt::format("degraded links are {}", not_yet), s.degraded_links[0].where, s.degraded_links[0].key);
  }
  if (s.stragglers.jitter.distribution != JitterKind::none || !s.stragglers.slow.empty()) {
    throw InputError(fmt::format("stragglers are {} (identical ranks run one timeline)", not_yet),
                     SourceLocation{s.source, 0, 0}, "stragglers");
  }
}

}  // namespace syncsim::run
