#include "syncsim/collectives/tree_tuning.hpp"

#include <algorithm>
#include <array>
#include <bit>

namespace syncsim {

namespace {
// NCCL 2.30 src/graph/tuning.cc, treeCorrectionFactor: [LL, LL128, Simple][log2(bytes >> 6)], 64 B to 256 MiB.
constexpr std::array<std::array<double, 23>, 3> kTreeCorrection{{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
}};

std::size_t protocol_index(Protocol protocol) {
  switch (protocol) {
    case Protocol::ll:
      return 0;
    case Protocol::ll128:
      return 1;
    case Protocol::simple:
      return 2;
  }
  return 2;
}

std::uint32_t log2_floor(std::uint64_t x) {
  return x == 0 ? 0 : static_cast<std::uint32_t>(std::bit_width(x) - 1);
}
}  // namespace

std::int64_t tree_chunk_bytes(std::optional<Protocol> protocol, Bytes bytes, std::uint32_t channels, std::size_t nodes,
                              std::size_t ranks) {
  constexpr std::int64_t kSteps = 8;  // NCCL_STEPS
  if (protocol == Protocol::ll) return std::int64_t{8 * 512 * kSteps * 16} / kSteps / 2;
  if (protocol != Protocol::ll128) return (std::int64_t{1} << 22) / kSteps;
  std::int64_t chunk = std::int64_t{120 * 640 * kSteps * 8} / kSteps / 16 * 15;
  const double ppn = static_cast<double>(ranks) / static_cast<double>(std::max<std::size_t>(1, nodes));
  const double steps = 1 + log2_floor(nodes) + 0.1 * ppn;
  const auto per_chunk = [&] {
    return static_cast<double>(bytes.value / (std::max<std::uint32_t>(1, channels) * chunk));
  };
  while (per_chunk() < steps * 64 / ppn && chunk > 131072) chunk /= 2;
  while (per_chunk() < steps * 16 / ppn && chunk > 32768) chunk /= 2;
  return chunk;
}

std::uint32_t tree_slices(Bytes channel_bytes, std::int64_t chunk_bytes) {
  const std::int64_t slices = (channel_bytes.value + chunk_bytes - 1) / chunk_bytes;
  return static_cast<std::uint32_t>(std::clamp<std::int64_t>(slices, 1, kMaxTreeSlices));
}

double tree_correction_factor(Protocol protocol, Bytes bytes) {
  if (bytes.value < 64) return 1.0;
  const std::uint32_t index = log2_floor(static_cast<std::uint64_t>(bytes.value) >> 6);
  if (index >= kTreeCorrection[0].size()) return 1.0;
  return kTreeCorrection[protocol_index(protocol)][index];
}

SimTime tree_ranking_time(SimTime time, Protocol protocol, Bytes bytes, std::size_t nodes, std::size_t ranks,
                          SimTime ring_bandwidth_time) {
  const TransferCost cost = nccl_cost(Algorithm::tree, protocol);
  const auto& step = *cost.step_latency;
  const std::size_t ppn = ranks / std::max<std::size_t>(1, nodes);
  const SimTime latency = cost.launch + SimTime::from_seconds(2 * (static_cast<double>(ppn - 1) * step[0].seconds() +
                                                                   log2_floor(nodes) * step[2].seconds()));
  const double n = static_cast<double>(ranks);
  const double ring_ratio = (n / (2 * (n - 1))) / (0.5 * 0.92);
  const double simulated = time > latency ? (time - latency).seconds() : 0.0;
  const double bandwidth_part = std::max(simulated, ring_ratio * ring_bandwidth_time.seconds());
  if (bandwidth_part == 0) return time;
  return std::min(time, latency) + SimTime::from_seconds(bandwidth_part / tree_correction_factor(protocol, bytes));
}

}  // namespace syncsim
