#pragma once
// Rng: the one seeded random generator of a run (xoshiro256**, seeded through splitmix64).
//
// The standard library's distributions are implementation-defined, so a run would differ between compilers;
// these are written out here so that the same seed gives the same numbers everywhere.
#include <cstdint>

namespace syncsim {

class Rng {
 public:
  explicit Rng(std::uint64_t seed);

  std::uint64_t next_u64();
  // Uniform in [0, 1) with 53 random bits.
  double uniform();
  // Uniform integer in [0, bound); bound > 0.
  std::uint64_t below(std::uint64_t bound);
  // Standard normal (Box-Muller; one value per call, the spare is cached).
  double normal();
  double normal(double mean, double stddev) { return mean + stddev * normal(); }
  // exp(N(mu, sigma)).
  double lognormal(double mu, double sigma);
  double exponential(double mean);

  // An independent stream derived from this one's seed and `stream` (e.g. one per worker).
  Rng fork(std::uint64_t stream) const;

 private:
  std::uint64_t seed_;
  std::uint64_t s_[4];
  double spare_normal_ = 0;
  bool has_spare_ = false;
};

}  // namespace syncsim
