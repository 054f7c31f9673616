#pragma once
// Sizes, bandwidths and durations: strong types, parsers and printers.
//
// Units are explicit everywhere (docs/architecture.md §3): sizes `4096`, `64KiB`, `25MB` (MB = 1e6, MiB = 2^20; a plain
// integer is bytes); bandwidth `100Gbps` (bits per second) or `12.5GB/s` / `12.5GBps` (bytes per second, 1e9);
// time `5us`, `1.5ms`, `2s`. A bandwidth or a time without its unit is an error, never a guess.
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "syncsim/core/sim_time.hpp"

namespace syncsim {

struct Bytes {
  std::int64_t value = 0;
  constexpr auto operator<=>(const Bytes&) const = default;
  constexpr Bytes operator+(Bytes o) const { return {value + o.value}; }
  constexpr Bytes operator-(Bytes o) const { return {value - o.value}; }
  constexpr Bytes& operator+=(Bytes o) {
    value += o.value;
    return *this;
  }
};

// Bytes per second. Double, because link rates are shared fractionally by the flow model.
struct Bandwidth {
  double bytes_per_second = 0;
  static constexpr Bandwidth from_gbps(double gigabits) { return {gigabits * 1e9 / 8}; }
  static constexpr Bandwidth from_gb_per_s(double gigabytes) { return {gigabytes * 1e9}; }
  constexpr double gb_per_s() const { return bytes_per_second * 1e-9; }
  constexpr auto operator<=>(const Bandwidth&) const = default;
};

// Time to push `bytes` through `bw`, rounded to the nearest picosecond.
SimTime transfer_time(Bytes bytes, Bandwidth bw);

// Parsers throw InputError naming `what` (e.g. the key) and the offending text; the caller adds the location
// by catching and rethrowing with InputError::at(), or by passing a SourceLocation.
Bytes parse_bytes(std::string_view text);
Bandwidth parse_bandwidth(std::string_view text);
SimTime parse_duration(std::string_view text);
// A wall-clock span in seconds (`36h`, `90d`; s, min, h, d), up to 1e12 s: longer than the simulated clock holds.
double parse_seconds(std::string_view text);
// A positive count (`8`, `1024`); rejects signs, fractions and units.
std::int64_t parse_count(std::string_view text);
// A plain decimal number without unit (`4`, `1.5`).
double parse_number(std::string_view text);

// Printers pick a readable unit: "64 KiB", "1.5 GiB", "100 Gbps (12.5 GB/s)", "5 us", "1.25 ms".
std::string format_bytes(Bytes bytes);
std::string format_bandwidth(Bandwidth bw);
std::string format_duration(SimTime t);

}  // namespace syncsim
