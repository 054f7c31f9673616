// The refusals the engines that run one timeline per class of alike ranks share, and the degraded network they run
// on (engines.hpp).
#include <fmt/format.h>

#include <map>

#include "engines.hpp"
#include "scenario_network.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim::run {

namespace {

// Strategies other than sync over AllReduce, and compression of DDP's buckets.
void refuse_beyond_sync(const Scenario& s, const std::string& not_yet) {
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
}

}  // namespace

void refuse_what_layouts_lack(const Scenario& s, std::string_view with) {
  const std::string not_yet = fmt::format("not simulated yet {}", with);
  refuse_beyond_sync(s, not_yet);
  for (const FaultConfig& fault : s.faults) {
    if (fault.policy.value == FaultPolicy::elastic) {
      throw fault.policy.error(
          fmt::format("elastic recovery is {} (it would change the layout); restart_from_checkpoint is", not_yet));
    }
  }
  for (const LinkDegradation& d : s.degraded_links) {
    if (d.from > SimTime::zero() || d.until) {
      throw InputError(fmt::format("a degradation window is {}: each collective is simulated once, so a link is "
                                   "degraded for the whole run (leave out from and until)",
                                   not_yet),
                       d.where, d.key);
    }
  }
}

void refuse_unsimulated_overheads(const Scenario& s, std::string_view with, bool slows_backward) {
  const TrainingConfig& t = s.training;
  if (t.framework_overhead) {
    throw t.framework_overhead->error(fmt::format(
        "DDP's per-iteration bookkeeping is simulated for plain data parallelism, not {} (leave the key out)", with));
  }
  if (!slows_backward && t.overlap_slowdown) {
    throw t.overlap_slowdown->error(
        fmt::format("the slowdown of compute beside gradient collectives is not simulated yet {} (leave the key "
                    "out)",
                    with));
  }
}

void degrade_for_whole_run(ResolvedScenario& context) {
  std::map<LinkId, double> factors;
  for (const LinkDegradation& d : context.scenario().degraded_links) {
    for (const LinkId link : resolve_link(context.topology(), d.between)) {
      auto [at, fresh] = factors.try_emplace(link, 1.0);
      at->second *= d.factor;  // overlapping entries on one link multiply
    }
  }
  context.change_network(factors);
}

void refuse_what_identical_ranks_lack(const Scenario& s, std::string_view with) {
  const std::string not_yet = fmt::format("not simulated yet {}", with);
  refuse_beyond_sync(s, not_yet);
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
