#include "sharded_paces.hpp"

#include <algorithm>

#include "syncsim/training/replica_classes.hpp"

namespace syncsim::run {

std::vector<RankPace> rank_paces(const StragglerModel& stragglers, std::int64_t group, std::int64_t ranks,
                                 std::int64_t iterations, const ShardedRunResult& result) {
  if (!has_stragglers(stragglers)) {
    return std::vector<RankPace>(static_cast<std::size_t>(ranks), {result.compute, SimTime::zero()});
  }
  std::vector<RankPace> out;
  out.reserve(static_cast<std::size_t>(ranks));
  double group_mean = 1;
  for (std::int64_t rank = 0; rank < ranks; ++rank) {
    if (rank % group == 0) {
      double sum = 0;
      for (std::int64_t it = 0; it < iterations; ++it) sum += group_factor(stragglers, group, rank, it);
      group_mean = sum / static_cast<double>(iterations);
    }
    const SimTime compute = std::min(result.compute, result.nominal_compute.scaled(group_mean));
    out.push_back({compute, result.compute - compute});
  }
  return out;
}

std::function<double(std::int64_t)> slowest_pace(const StragglerModel& stragglers, std::int64_t ranks) {
  if (!has_stragglers(stragglers)) return {};
  return [stragglers, ranks](std::int64_t iteration) { return slowest_factor(stragglers, ranks, iteration); };
}

CauseReport straggler_cause(SimTime total, SimTime nominal_total, std::int64_t iterations) {
  const SimTime lost = SimTime::from_ps(std::max<std::int64_t>(0, (total - nominal_total).ps()) / iterations);
  return {.cause = "stragglers", .per_iteration = lost, .measured = true};
}

std::optional<CauseReport> sharded_straggler_cause(const ShardedRunSetup& setup, const ShardedRunResult& result) {
  if (!setup.slowest) return std::nullopt;
  ShardedRunSetup even = setup;
  even.slowest = nullptr;
  return straggler_cause(result.total, run_sharded(even).total, setup.iterations);
}

}  // namespace syncsim::run
