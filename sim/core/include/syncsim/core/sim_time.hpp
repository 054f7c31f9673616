#pragma once
// SimTime: simulated time as an integer count of picoseconds.
//
// An int64 of picoseconds spans about 106 days of simulated time, far beyond any training run we model,
// and keeps event ordering exact: there is no floating-point clock and no epsilon comparison anywhere.
#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>

namespace syncsim {

class SimTime {
 public:
  constexpr SimTime() = default;

  static constexpr SimTime from_ps(std::int64_t ps) { return SimTime{ps}; }
  static constexpr SimTime from_ns(double ns) { return from_seconds(ns * 1e-9); }
  static constexpr SimTime from_us(double us) { return from_seconds(us * 1e-6); }
  static constexpr SimTime from_ms(double ms) { return from_seconds(ms * 1e-3); }
  // Rounds to the nearest picosecond.
  static constexpr SimTime from_seconds(double s) {
    const double ps = s * 1e12;
    return SimTime{static_cast<std::int64_t>(ps < 0 ? ps - 0.5 : ps + 0.5)};
  }
  static constexpr SimTime zero() { return SimTime{0}; }
  static constexpr SimTime max() { return SimTime{std::numeric_limits<std::int64_t>::max()}; }

  constexpr std::int64_t ps() const { return ps_; }
  constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }
  constexpr double us() const { return static_cast<double>(ps_) * 1e-6; }

  constexpr auto operator<=>(const SimTime&) const = default;
  constexpr SimTime operator+(SimTime o) const { return SimTime{ps_ + o.ps_}; }
  constexpr SimTime operator-(SimTime o) const { return SimTime{ps_ - o.ps_}; }
  constexpr SimTime& operator+=(SimTime o) {
    ps_ += o.ps_;
    return *this;
  }
  constexpr SimTime& operator-=(SimTime o) {
    ps_ -= o.ps_;
    return *this;
  }
  constexpr SimTime operator*(std::int64_t k) const { return SimTime{ps_ * k}; }
  // This duration times a real factor (a straggler's slowdown, an efficiency), rounded to the nearest picosecond.
  SimTime scaled(double factor) const {
    return factor == 1.0 ? *this : SimTime{std::llround(static_cast<double>(ps_) * factor)};
  }

 private:
  constexpr explicit SimTime(std::int64_t ps) : ps_(ps) {}
  std::int64_t ps_ = 0;
};

}  // namespace syncsim
