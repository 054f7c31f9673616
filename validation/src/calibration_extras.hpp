#pragma once
// The parts of a calibration made after the Gauss-Newton fit of its two regimes (calibration_fit.hpp): the domain
// it was fitted on, and the size windows where a log ran slower than the regimes predict.
#include <optional>
#include <vector>

#include "syncsim/collectives/calibration.hpp"
#include "syncsim/validation/log_system.hpp"
#include "syncsim/validation/nccl_tests_log.hpp"

namespace syncsim::calibration_extras {

// The system the logs ran on (calibration_domain.hpp): GPU, largest scale, per crossed link class its nominal rate
// and count on the largest system that crossed it, the sizes, and what each log states of NCCL.
CalibrationDomain record_domain(const std::vector<NcclTestsLog>& logs, const std::vector<LogSystem*>& systems,
                                Placement placement);

// Up to kMaxWindows windowed regimes for `calibration` (measured already with its two regimes): each for a run of
// neighbouring sizes >= kWindowMinBytes of one log predicted more than kWindowThreshold too fast, tied to the
// slowest link class that log crosses, with two parameters fitted on the run: an extra fixed cost per collective
// and a factor dividing the class efficiencies of the `bandwidth` regime. The caller keeps each only where it
// lowers window_loss over all the logs (a window one log wants may cost another log of the same links).
std::vector<CalibrationRegime> window_candidates(const Calibration& calibration,
                                                 const std::vector<LogSystem*>& systems);

// The sum over every log of the squared relative errors at sizes >= kWindowMinBytes.
double window_loss(const Calibration& calibration);

}  // namespace syncsim::calibration_extras
