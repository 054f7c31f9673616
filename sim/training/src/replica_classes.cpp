#include "syncsim/training/replica_classes.hpp"

#include <algorithm>
#include <map>

namespace syncsim {

bool has_stragglers(const StragglerModel& model) {
  const StragglerSpec& s = model.spec();
  return (s.jitter != JitterKind::none && s.sigma > 0) ||
         std::any_of(s.slow_ranks.begin(), s.slow_ranks.end(), [](const auto& slow) { return slow.second != 1.0; });
}

double group_factor(const StragglerModel& model, std::int64_t group, std::int64_t rank, std::int64_t iteration) {
  const std::int64_t first = rank - rank % group;
  double f = model.factor(first, iteration);
  for (std::int64_t r = first + 1; r < first + group; ++r) f = std::max(f, model.factor(r, iteration));
  return f;
}

double slowest_factor(const StragglerModel& model, std::int64_t ranks, std::int64_t iteration) {
  if (!has_stragglers(model)) return 1.0;
  const StragglerSpec& s = model.spec();
  if (s.jitter == JitterKind::none || s.sigma == 0) {
    // Only the listed ranks differ: the slowest is one of them, or any unlisted rank at 1.
    double f = static_cast<std::int64_t>(s.slow_ranks.size()) < ranks ? 1.0 : 0.0;
    for (const auto& [rank, slow] : s.slow_ranks) f = std::max(f, slow);
    return f;
  }
  return group_factor(model, ranks, 0, iteration);
}

namespace {

// Every group's factor, [replica x stages + stage].
std::vector<double> group_factors(const StragglerModel& model, std::int64_t group, std::int64_t replicas,
                                  std::int64_t stages, std::int64_t iteration) {
  const auto slot = [&](std::int64_t rank) {
    const std::int64_t block = rank / group;
    return static_cast<std::size_t>((block % replicas) * stages + block / replicas);
  };
  const StragglerSpec& s = model.spec();
  if (s.jitter != JitterKind::none && s.sigma > 0) {
    std::vector<double> factors(static_cast<std::size_t>(replicas * stages), 0.0);
    for (std::int64_t rank = 0; rank < group * replicas * stages; ++rank) {
      double& f = factors[slot(rank)];
      f = std::max(f, model.factor(rank, iteration));
    }
    return factors;
  }
  std::vector<double> factors(static_cast<std::size_t>(replicas * stages), 1.0);
  // Without jitter only the listed ranks differ; a group all of whose members are listed may be faster than 1.
  std::map<std::size_t, std::pair<double, std::int64_t>> listed;  // slot -> (largest factor, members listed)
  for (const auto& [rank, slow] : s.slow_ranks) {
    auto& [largest, count] = listed.try_emplace(slot(rank), 0.0, 0).first->second;
    largest = std::max(largest, slow);
    ++count;
  }
  for (const auto& [at, entry] : listed) factors[at] = entry.second == group ? entry.first : std::max(1.0, entry.first);
  return factors;
}

}  // namespace

std::vector<ReplicaClass> replica_classes(const StragglerModel& model, std::int64_t group, std::int64_t replicas,
                                          std::int64_t stages, std::int64_t iteration) {
  if (!has_stragglers(model)) return {{std::vector<double>(static_cast<std::size_t>(stages), 1.0), replicas}};
  const std::vector<double> factors = group_factors(model, group, replicas, stages, iteration);
  std::map<std::vector<double>, std::int64_t> classes;
  for (std::int64_t r = 0; r < replicas; ++r) {
    const auto from = factors.begin() + r * stages;
    ++classes[std::vector<double>(from, from + stages)];
  }
  std::vector<ReplicaClass> out;
  for (auto& [stage_factors, count] : classes) out.push_back({stage_factors, count});
  return out;
}

}  // namespace syncsim
