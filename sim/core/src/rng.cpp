#include "syncsim/core/rng.hpp"

#include <bit>
#include <cmath>
#include <numbers>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
}  // namespace

Rng::Rng(std::uint64_t seed) : seed_(seed) {
  std::uint64_t state = seed;
  for (auto& word : s_) word = splitmix64(state);
}

std::uint64_t Rng::next_u64() {
  const std::uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = std::rotl(s_[3], 45);
  return result;
}

double Rng::uniform() {
  return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
}

std::uint64_t Rng::below(std::uint64_t bound) {
  SYNCSIM_INVARIANT(bound > 0, "Rng::below needs a positive bound");
  // Rejection keeps the result unbiased for bounds that do not divide 2^64.
  const std::uint64_t limit = -bound % bound;
  for (;;) {
    const std::uint64_t x = next_u64();
    if (x >= limit) return x % bound;
  }
}

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_normal_;
  }
  double u1 = uniform();
  while (u1 <= 0) u1 = uniform();
  const double u2 = uniform();
  const double radius = std::sqrt(-2.0 * std::log(u1));
  const double angle = 2.0 * std::numbers::pi * u2;
  spare_normal_ = radius * std::sin(angle);
  has_spare_ = true;
  return radius * std::cos(angle);
}

double Rng::lognormal(double mu, double sigma) {
  return std::exp(normal(mu, sigma));
}

double Rng::exponential(double mean) {
  double u = uniform();
  while (u <= 0) u = uniform();
  return -mean * std::log(u);
}

Rng Rng::fork(std::uint64_t stream) const {
  std::uint64_t state = seed_ ^ (0x6a09e667f3bcc909ULL * (stream + 1));
  return Rng(splitmix64(state));
}

}  // namespace syncsim
