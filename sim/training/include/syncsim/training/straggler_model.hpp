#pragma once
// StragglerModel: how much slower than nominal a rank computes in one iteration (issue 3, item 4; faults apart).
//
//   factor(rank, iteration) = slow_factor(rank) x jitter(rank, iteration)
//
//   - slow_factor: persistent per rank (a slow GPU, thermal throttling); 1 for ranks not listed.
//   - jitter, drawn from the seeded Rng:
//       none       1;
//       lognormal  exp(N(mu, sigma)) with mu = -sigma^2 / 2, so that E[jitter] = exp(mu + sigma^2 / 2) = 1: jitter
//                  slows some iterations and speeds others, and the mean compute time stays the nominal one;
//       normal     max(normal_min_factor, 1 + sigma x N(0, 1)); the clamp (default 0.05) keeps a compute time
//                  positive. It cuts the lower tail only, so the mean is 1 up to a term that is negligible for
//                  sigma well below 1 (the clamp is 9.5 sigma away at sigma = 0.1).
//
// Determinism: the draw for (rank, iteration) is the first standard normal of
//   Rng(seed).fork(rank).fork(iteration)
// a pure function of (seed, rank, iteration). It does not depend on how many ranks are simulated, on how many
// iterations came before, or on the order of queries, so adding ranks or iterations never changes the others'.
//
//   StragglerSpec spec;
//   spec.jitter = JitterKind::lognormal;
//   spec.sigma = 0.1;
//   spec.slow_ranks = {{3, 1.5}};   // rank 3 computes 1.5x slower, always
//   StragglerModel model(spec);
//   model.factor(3, 17)             // 1.5 x this iteration's jitter
#include <cstdint>
#include <map>

namespace syncsim {

enum class JitterKind { none, lognormal, normal };  // also the scenario's stragglers.jitter.distribution

struct StragglerSpec {
  JitterKind jitter = JitterKind::none;
  double sigma = 0;                           // lognormal: of the underlying normal; normal: of the factor
  double normal_min_factor = 0.05;            // JitterKind::normal only: the clamp
  std::map<std::int64_t, double> slow_ranks;  // rank -> persistent slow factor (> 0)
  std::uint64_t seed = 0;
};

class StragglerModel {
 public:
  StragglerModel() = default;  // no stragglers: every factor is 1
  // Throws InputError for a negative or non-finite sigma, a non-positive normal_min_factor, a negative rank or
  // a non-positive or non-finite slow factor.
  explicit StragglerModel(StragglerSpec spec);

  const StragglerSpec& spec() const { return spec_; }
  // Largest rank with a persistent slow factor, or -1 when there is none.
  std::int64_t max_slow_rank() const;

  double slow_factor(std::int64_t rank) const;
  double jitter(std::int64_t rank, std::int64_t iteration) const;
  double factor(std::int64_t rank, std::int64_t iteration) const { return slow_factor(rank) * jitter(rank, iteration); }

 private:
  StragglerSpec spec_;
};

}  // namespace syncsim
