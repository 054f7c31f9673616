#pragma once
// The unknowns of one calibration regime (calibration_fit.hpp's table) as the fit holds them, and their physical
// ranges' constants: one array per regime, so that the linear algebra is over plain vectors.
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <string>

#include "syncsim/collectives/latency_model.hpp"

namespace syncsim::calibration_unknowns {

// The unknowns of one regime: launch, step latency per class, inverse efficiency per class, fill (us, us, 1, B).
constexpr std::size_t kUnknowns = 8;
using Params = std::array<double, kUnknowns>;
constexpr std::size_t kLaunch = 0;
constexpr std::size_t kFill = 7;
constexpr std::size_t latency_index(LinkKind c) {
  return 1 + static_cast<std::size_t>(c);
}
constexpr std::size_t inverse_index(LinkKind c) {
  return 4 + static_cast<std::size_t>(c);
}

constexpr std::array<const char*, 2> kRegimeNames{"latency", "bandwidth"};
constexpr std::array<Protocol, 2> kRegimeDefaults{Protocol::ll, Protocol::simple};
// The regime whose fill is fitted: `bandwidth` (Simple's ramp, 64 B per thread and channel). `latency`'s sizes are
// latency-bound, where a ramp and a fixed cost predict the same and the fit could only trade one for the other
// (it did: a fill of 2.8 KB for 2 us of a known launch); its fill stays 0.
constexpr std::size_t kFillRegime = 1;

// Bounds (calibration_fit.hpp says why each): efficiency from 1/1000 of the link rate up to kMaxEfficiency (1);
// latencies up to kMaxFixedCostFactor times the fastest measured collective; the fill up to NCCL's largest ramp.
constexpr double kMaxInverseEfficiency = 1e3;
constexpr double kMaxFixedCostFactor = 2;
// NCCL 2.30 (src/include/device.h, comm.h; src/graph/tuning.cc): MAXCHANNELS, NCCL_SIMPLE_MAX_NTHREADS, and the
// per-thread bytes before a channel is added (NCCL_SIMPLE_THREAD_THRESHOLD; ring LL: NCCL_LL_THREAD_THRESHOLD x
// nRanks).
constexpr double kNcclMaxChannels = 64;
constexpr double kNcclMaxThreads = 512;
constexpr double kNcclSimpleThreadThreshold = 64;
constexpr double kNcclLlThreadThreshold = 8;
// A parameter within this fraction of a bound (of the bound, or absolutely for a bound of 0) sits on it.
constexpr double kOnBoundTolerance = 1e-4;

inline TransferCost cost_of(const Params& p) {
  TransferCost cost;
  std::array<SimTime, 3> steps{};
  for (const LinkKind c : kLinkKinds) {
    const auto i = static_cast<std::size_t>(c);
    steps[i] = SimTime::from_us(p[latency_index(c)]);
    cost.efficiency[i] = 1.0 / p[inverse_index(c)];
  }
  cost.step_latency = steps;
  cost.launch = SimTime::from_us(p[kLaunch]);
  cost.fill = Bytes{static_cast<std::int64_t>(std::llround(p[kFill]))};
  return cost;
}

inline Params params_of(const TransferCost& cost) {
  Params p{};
  p[kLaunch] = cost.launch.us();
  for (const LinkKind c : kLinkKinds) {
    const auto i = static_cast<std::size_t>(c);
    p[latency_index(c)] = (*cost.step_latency)[i].us();
    p[inverse_index(c)] = 1.0 / cost.efficiency[i];
  }
  p[kFill] = static_cast<double>(cost.fill.value);
  return p;
}

inline double dot(const Params& a, const Params& b) {
  double sum = 0;
  for (std::size_t k = 0; k < kUnknowns; ++k) sum += a[k] * b[k];
  return sum;
}

// 6 significant digits, as the file holds them: the fit's own errors are then what `validate` reproduces.
inline double rounded(double value) {
  return value == 0 ? 0 : std::stod(fmt::format("{:.6g}", value));
}

}  // namespace syncsim::calibration_unknowns
