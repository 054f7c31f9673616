#include "sample_stream.hpp"

#include <numeric>
#include <utility>

#include "syncsim/core/rng.hpp"

namespace syncsim::convergence {

namespace {

constexpr std::uint64_t kShuffleStream = 0xC0'0100;

}  // namespace

SampleStream::SampleStream(std::int64_t samples, std::uint64_t seed) : samples_(samples), seed_(seed) {}

const std::vector<std::int32_t>& SampleStream::order(std::int64_t epoch) {
  auto it = orders_.find(epoch);
  if (it != orders_.end()) return it->second;
  std::vector<std::int32_t> perm(static_cast<std::size_t>(samples_));
  std::iota(perm.begin(), perm.end(), 0);
  Rng rng = Rng(seed_).fork(kShuffleStream + static_cast<std::uint64_t>(epoch));
  for (std::size_t i = perm.size(); i > 1; --i) {
    std::swap(perm[i - 1], perm[rng.below(i)]);
  }
  return orders_.emplace(epoch, std::move(perm)).first->second;
}

std::int64_t SampleStream::at(std::int64_t position) {
  return order(position / samples_)[static_cast<std::size_t>(position % samples_)];
}

void SampleStream::forget_before(std::int64_t position) {
  orders_.erase(orders_.begin(), orders_.lower_bound(position / samples_));
}

}  // namespace syncsim::convergence
