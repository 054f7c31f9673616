// A calibrated collective at an edge of its error band (resolved_scenario.hpp, BandEdge): the run's band is the
// iteration with every calibrated collective at the band's low edge, and at its high edge (run_scenario.cpp).
#include "resolved_scenario.hpp"

namespace syncsim::run {

CollectiveOutcome ResolvedScenario::at_band_edge(CollectiveOutcome outcome, const CollectiveSpec& spec) const {
  if (band_edge_ == BandEdge::none || !calibration_ || spec.calibration == nullptr) return outcome;
  const ErrorBand band = error_band(*calibration_, spec.size);
  // Each collective at the same edge: a bias the fit's residuals show at one size runs through all sizes near it,
  // so the iteration's range is the sum of the edges, not a narrower quadrature.
  outcome.time = outcome.time.scaled(1 + (band_edge_ == BandEdge::low ? band.low : band.high));
  return outcome;
}

}  // namespace syncsim::run
