// Calibration files (`syncsim calibrate` output) through parse_calibration, and to_model on what parses: the
// collective runner's view of the regimes is where a value that slipped through validation would bite.
#include <string>

#include "fuzz_targets.hpp"
#include "syncsim/collectives/calibration.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim::fuzz {

int fuzz_calibration(const std::uint8_t* data, std::size_t size) {
  try {
    const Calibration calibration = parse_calibration(std::string(as_text(data, size)), "fuzz.yaml");
    (void)to_model(calibration);
  } catch (const InputError&) {
  }
  return 0;
}

}  // namespace syncsim::fuzz
