#include "fault_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "scenario_network.hpp"
#include "syncsim/training/link_failure.hpp"

namespace syncsim::run {

std::vector<PlannedFault> plan_faults(const Scenario& s, const Topology& topology, std::int64_t workers) {
  std::vector<PlannedFault> planned;
  for (const FaultConfig& fault : s.faults) {
    if (fault.policy.value == FaultPolicy::continue_without) {
      throw fault.policy.error(
          fmt::format("strategy {} waits for every worker, so it cannot continue without one; use elastic or "
                      "restart_from_checkpoint",
                      to_string(s.training.strategy.value)));
    }
    PlannedFault p;
    p.event.at = fault.at;
    p.event.recovery = fault.policy.value;
    p.kind = fault.kind;
    if (fault.kind == FaultKind::worker_down) {
      const Located<std::int64_t>& rank = *fault.rank;
      if (rank.value >= workers) {
        throw rank.error(fmt::format("rank {} does not exist among {} workers", rank.value, workers));
      }
      p.event.ranks = {rank.value};
      p.target = fmt::format("rank {}", rank.value);
    } else {
      const std::vector<LinkId> links = resolve_link(topology, *fault.between);
      p.event.ranks = cut_off_workers(topology, links, workers);
      p.target = fmt::format("{} - {}", fault.between->a.value, fault.between->b.value);
      if (p.event.ranks.empty() && p.event.recovery == FaultPolicy::elastic) p.failed_links = links;
    }
    planned.push_back(std::move(p));
  }
  // Elastic faults remove workers for good: replay them in time order (the engine's order) to check that each
  // later fault names a worker still there and that some worker is always left.
  std::vector<std::size_t> order(planned.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return planned[a].event.at < planned[b].event.at; });
  std::set<std::int64_t> left;
  for (const std::size_t i : order) {
    FaultEvent& event = planned[i].event;
    const FaultConfig& fault = s.faults[i];
    if (fault.kind == FaultKind::worker_down && left.contains(event.ranks[0])) {
      throw fault.rank->error(fmt::format("rank {} already left the job at an earlier elastic fault", event.ranks[0]));
    }
    std::erase_if(event.ranks, [&](std::int64_t r) { return left.contains(r); });  // cut off before: gone already
    if (event.recovery != FaultPolicy::elastic) continue;
    left.insert(event.ranks.begin(), event.ranks.end());
    if (static_cast<std::int64_t>(left.size()) >= workers) {
      throw fault.policy.error(fmt::format("after {} no worker is left to train elastically", fault.key));
    }
  }
  return planned;
}

void check_faults_happened(const Scenario& s, const std::vector<bool>& happened, SimTime run_end) {
  const FaultConfig* first = nullptr;
  for (std::size_t i = 0; i < s.faults.size() && i < happened.size(); ++i) {
    if (!happened[i] && (first == nullptr || s.faults[i].at < first->at)) first = &s.faults[i];
  }
  if (first == nullptr) return;
  throw InputError(fmt::format("the fault at {} never happens: the run ends at {} (move it earlier or remove it)",
                               format_duration(first->at), format_duration(run_end)),
                   first->where, first->key + ".at");
}

}  // namespace syncsim::run
