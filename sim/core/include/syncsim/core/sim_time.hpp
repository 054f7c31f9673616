#pragma once
// SimTime: simulated time as an integer count of picoseconds.
//
// An int64 of picoseconds spans about 106 days of simulated time, far beyond any training run we model,
// and keeps event ordering exact: there is no floating-point clock and no epsilon comparison anywhere.
//
// Every conversion and every operation is checked: a time that would leave the clock (a valid but extreme input:
// 1 GiB at 1 bps) throws SimTimeOverflow (sim_time_overflow.hpp), an exit-2 input error, instead of wrapping
// around. The checks are a compare or an overflow flag per operation, and never change a time that fits.
#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>

namespace syncsim {

// Throw SimTimeOverflow (sim_time.cpp): `seconds` is the time that did not fit; the others say what was computed.
[[noreturn]] void sim_time_overflow_seconds(double seconds);
[[noreturn]] void sim_time_overflow_ps(const char* operation, std::int64_t a, std::int64_t b);
[[noreturn]] void sim_time_overflow_scaled(std::int64_t ps, double factor);

class SimTime {
 public:
  constexpr SimTime() = default;

  static constexpr SimTime from_ps(std::int64_t ps) { return SimTime{ps}; }
  static constexpr SimTime from_ns(double ns) { return from_seconds(ns * 1e-9); }
  static constexpr SimTime from_us(double us) { return from_seconds(us * 1e-6); }
  static constexpr SimTime from_ms(double ms) { return from_seconds(ms * 1e-3); }
  // Rounds to the nearest picosecond. SimTimeOverflow beyond the clock's range (and for NaN).
  static constexpr SimTime from_seconds(double s) {
    if (!fits_seconds(s)) sim_time_overflow_seconds(s);
    const double ps = s * 1e12;
    return SimTime{static_cast<std::int64_t>(ps < 0 ? ps - 0.5 : ps + 0.5)};
  }
  // Whether from_seconds(s) is on the clock; false for NaN.
  static constexpr bool fits_seconds(double s) { return s * 1e12 < kLimitPs && s * 1e12 > -kLimitPs; }
  static constexpr SimTime zero() { return SimTime{0}; }
  static constexpr SimTime max() { return SimTime{std::numeric_limits<std::int64_t>::max()}; }

  constexpr std::int64_t ps() const { return ps_; }
  constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }
  constexpr double us() const { return static_cast<double>(ps_) * 1e-6; }

  constexpr auto operator<=>(const SimTime&) const = default;
  constexpr SimTime operator+(SimTime o) const {
    std::int64_t sum = 0;
    if (__builtin_add_overflow(ps_, o.ps_, &sum)) sim_time_overflow_ps("+", ps_, o.ps_);
    return SimTime{sum};
  }
  constexpr SimTime operator-(SimTime o) const {
    std::int64_t difference = 0;
    if (__builtin_sub_overflow(ps_, o.ps_, &difference)) sim_time_overflow_ps("-", ps_, o.ps_);
    return SimTime{difference};
  }
  constexpr SimTime& operator+=(SimTime o) { return *this = *this + o; }
  constexpr SimTime& operator-=(SimTime o) { return *this = *this - o; }
  constexpr SimTime operator*(std::int64_t k) const {
    std::int64_t product = 0;
    if (__builtin_mul_overflow(ps_, k, &product)) sim_time_overflow_ps("x", ps_, k);
    return SimTime{product};
  }
  // This duration times a real factor (a straggler's slowdown, an efficiency), rounded to the nearest picosecond.
  SimTime scaled(double factor) const {
    if (factor == 1.0) return *this;
    const double ps = static_cast<double>(ps_) * factor;
    if (!(ps < kLimitPs && ps > -kLimitPs)) sim_time_overflow_scaled(ps_, factor);
    return SimTime{std::llround(ps)};
  }

  // The clock's range in picoseconds as a double (2^63): a double time converts only strictly inside it.
  static constexpr double kLimitPs = 9223372036854775808.0;
  // The range in days, for messages: 2^63 ps is 106.75 days.
  static constexpr double kLimitDays = kLimitPs * 1e-12 / 86400;

 private:
  constexpr explicit SimTime(std::int64_t ps) : ps_(ps) {}
  std::int64_t ps_ = 0;
};

}  // namespace syncsim
