// SimTime's overflow reports (sim_time.hpp): out of line, so the checked arithmetic stays small and inlined.
#include "syncsim/core/sim_time.hpp"

#include <fmt/format.h>

#include <cmath>

#include "syncsim/core/sim_time_overflow.hpp"
#include "syncsim/core/units.hpp"

namespace syncsim {

namespace {

std::string clock_message(const std::string& quantity) {
  return fmt::format("the simulated time passes {:.0f} days (the int64-picosecond clock): {}",
                     std::floor(SimTime::kLimitDays), quantity);
}

std::string seconds_text(double seconds) {
  if (std::isnan(seconds)) return "a time that is not a number";
  return fmt::format("a time of {:.3g} s ({:.3g} days)", seconds, seconds / 86400);
}

}  // namespace

SimTimeOverflow::SimTimeOverflow(std::string quantity)
    : InputError(clock_message(quantity)), quantity_(std::move(quantity)) {}

void sim_time_overflow_seconds(double seconds) {
  throw SimTimeOverflow(seconds_text(seconds));
}

void sim_time_overflow_ps(const char* operation, std::int64_t a, std::int64_t b) {
  const std::string right =
      std::string_view(operation) == "x" ? std::to_string(b) : format_duration(SimTime::from_ps(b));
  throw SimTimeOverflow(fmt::format("{} {} {}", format_duration(SimTime::from_ps(a)), operation, right));
}

void sim_time_overflow_scaled(std::int64_t ps, double factor) {
  throw SimTimeOverflow(fmt::format("{} x {:.3g}", format_duration(SimTime::from_ps(ps)), factor));
}

}  // namespace syncsim
