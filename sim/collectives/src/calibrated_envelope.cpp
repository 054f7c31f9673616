// simulate_collective (collective_runner.hpp): one size's simulation and, under a calibration with size windows, the
// envelope that keeps a collective no slower than a larger one.
//
// A calibration fits a regime of its own to a size window where the measured curve kinks (calibration_fit.cpp).
// Fitted on one system and carried to another, a window's regime can make a size inside it slower than the first size
// past it (the two-node RoCE fit at 2,048 GPUs: 16 MiB in 4,778 us, 32 MiB in 4,345 us), which no hardware does: the
// configuration that carries the larger message carries the smaller one in no more time. So a size inside a window
// takes at most the time of the first size past the window that a log measures (which the later windows bound in
// turn), with that size's choice of algorithm and regime; its traffic stays its own. nccl-tests doubles its sizes
// from powers of two, and a window reaches halfway (geometrically) to the next measured size, so that size is the
// next power of two: a fitted size, not the plain regimes' guess just past the window (which, fitted elsewhere,
// can be too fast there). On the fitted system, whose measured times rise with the size, nothing changes.
#include <bit>
#include <cstdint>
#include <optional>

#include "collective_groups.hpp"

namespace syncsim {

namespace {

// The first power of two past the widest-reaching calibration window that holds the spec's size, or nullopt (none
// holds it, or no calibration). A window whose link class the collective does not cross holds it too: past the window
// the same regimes run, so the envelope changes nothing there, at the cost of one more simulation.
std::optional<Bytes> measured_past_window(const CollectiveSpec& spec) {
  if (spec.latency != LatencySource::calibrated || spec.calibration == nullptr) return std::nullopt;
  std::optional<Bytes> end;
  for (const std::optional<RegimeWindow>& w : spec.calibration->windows) {
    if (w && spec.size >= w->min_size && spec.size <= w->max_size && (!end || w->max_size > *end)) end = w->max_size;
  }
  if (!end || end->value >= std::int64_t{1} << 62) return std::nullopt;
  return Bytes{static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(end->value) + 1))};
}

}  // namespace

CollectiveOutcome simulate_collective(Router& router, const CollectiveSpec& spec) {
  CollectiveOutcome outcome = collectives_detail::simulate_one_size(router, spec);
  if (const std::optional<Bytes> past_size = measured_past_window(spec)) {
    CollectiveSpec past = spec;
    past.size = *past_size;
    const CollectiveOutcome larger = simulate_collective(router, past);
    if (larger.time < outcome.time) {
      outcome.time = larger.time;
      outcome.algorithm = larger.algorithm;
      outcome.protocol = larger.protocol;
      outcome.regime = larger.regime;
      outcome.channels = larger.channels;
    }
  }
  return outcome;
}

}  // namespace syncsim
