#pragma once
// SampleStream: the training set read epoch after epoch, each epoch in its own order (a Fisher-Yates shuffle
// seeded from the seed and the epoch). Worker w of N reads positions w, w + N, w + 2N, ... (a distributed
// sampler), so the N workers' k-th batches together are the stream's k-th global batch.
#include <cstdint>
#include <map>
#include <vector>

namespace syncsim::convergence {

class SampleStream {
 public:
  SampleStream(std::int64_t samples, std::uint64_t seed);

  // The training sample at stream position `position` (>= 0).
  std::int64_t at(std::int64_t position);
  // Forgets the orders of epochs before the one holding `position` (no reader will go back there).
  void forget_before(std::int64_t position);

 private:
  const std::vector<std::int32_t>& order(std::int64_t epoch);

  std::int64_t samples_;
  std::uint64_t seed_;
  std::map<std::int64_t, std::vector<std::int32_t>> orders_;  // epoch -> permutation
};

}  // namespace syncsim::convergence
