#pragma once
// The default placement when a caller names no GPUs: rank r on GPU r. Shared by the channel layout and the runner.
#include <cstddef>
#include <numeric>
#include <vector>

namespace syncsim {

// GPU indices 0 .. ranks - 1: rank r on GPU r.
inline std::vector<std::size_t> first_gpus(std::size_t ranks) {
  std::vector<std::size_t> gpus(ranks);
  std::iota(gpus.begin(), gpus.end(), std::size_t{0});
  return gpus;
}

}  // namespace syncsim
