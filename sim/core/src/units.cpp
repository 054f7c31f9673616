#include "syncsim/core/units.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/sim_time_overflow.hpp"

namespace syncsim {

namespace {

struct UnitFactor {
  std::string_view name;
  double factor;
};

// Sizes: SI prefixes are powers of 1000, IEC prefixes powers of 1024. A bare K/M/G/T is binary, as in
// nccl-tests' -b/-e flags (`-e 1G` is 2^30 bytes), so size ranges copied from nccl-tests mean the same here.
constexpr std::array kSizeUnits{UnitFactor{"B", 1},
                                UnitFactor{"KB", 1e3},
                                UnitFactor{"MB", 1e6},
                                UnitFactor{"GB", 1e9},
                                UnitFactor{"TB", 1e12},
                                UnitFactor{"KiB", 1024.0},
                                UnitFactor{"MiB", 1048576.0},
                                UnitFactor{"GiB", 1073741824.0},
                                UnitFactor{"TiB", 1099511627776.0},
                                UnitFactor{"K", 1024.0},
                                UnitFactor{"M", 1048576.0},
                                UnitFactor{"G", 1073741824.0},
                                UnitFactor{"T", 1099511627776.0}};

// Bandwidths in bytes per second: `bps` and `b/s` are bits, `Bps` and `B/s` bytes (prefixes are 1000s).
constexpr double kMaxBytesPerSecond = 1e24;
constexpr std::array kBandwidthUnits{UnitFactor{"bps", 1.0 / 8},
                                     UnitFactor{"Kbps", 1e3 / 8},
                                     UnitFactor{"Mbps", 1e6 / 8},
                                     UnitFactor{"Gbps", 1e9 / 8},
                                     UnitFactor{"Tbps", 1e12 / 8},
                                     UnitFactor{"b/s", 1.0 / 8},
                                     UnitFactor{"Kb/s", 1e3 / 8},
                                     UnitFactor{"Mb/s", 1e6 / 8},
                                     UnitFactor{"Gb/s", 1e9 / 8},
                                     UnitFactor{"Tb/s", 1e12 / 8},
                                     UnitFactor{"B/s", 1},
                                     UnitFactor{"KB/s", 1e3},
                                     UnitFactor{"MB/s", 1e6},
                                     UnitFactor{"GB/s", 1e9},
                                     UnitFactor{"TB/s", 1e12},
                                     UnitFactor{"Bps", 1},
                                     UnitFactor{"KBps", 1e3},
                                     UnitFactor{"MBps", 1e6},
                                     UnitFactor{"GBps", 1e9},
                                     UnitFactor{"TBps", 1e12},
                                     UnitFactor{"KiB/s", 1024.0},
                                     UnitFactor{"MiB/s", 1048576.0},
                                     UnitFactor{"GiB/s", 1073741824.0}};

constexpr std::array kTimeUnits{UnitFactor{"ps", 1e-12},     UnitFactor{"ns", 1e-9}, UnitFactor{"us", 1e-6},
                                UnitFactor{"\u00b5s", 1e-6}, UnitFactor{"ms", 1e-3}, UnitFactor{"s", 1},
                                UnitFactor{"min", 60},       UnitFactor{"h", 3600},  UnitFactor{"d", 86400}};
// Wall-clock spans a training run takes (a deadline), past the simulated clock's 106 days: days too.
constexpr std::array kSpanUnits{UnitFactor{"s", 1}, UnitFactor{"min", 60}, UnitFactor{"h", 3600},
                                UnitFactor{"d", 86400}};

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

template <std::size_t N>
std::string unit_list(const std::array<UnitFactor, N>& units) {
  std::string out;
  for (const auto& unit : units) {
    if (!out.empty()) out += ", ";
    out += unit.name;
  }
  return out;
}

struct NumberAndUnit {
  double number;
  std::string_view unit;
};

// Splits "12.5GB/s" into 12.5 and "GB/s". Throws when there is no number.
NumberAndUnit split(std::string_view raw, std::string_view what_expected) {
  const std::string_view text = trim(raw);
  double number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc{} || end == text.data()) {
    throw InputError(fmt::format("expected {}, got '{}'", what_expected, raw));
  }
  if (!std::isfinite(number)) throw InputError(fmt::format("expected {}, got '{}'", what_expected, raw));
  const auto used = static_cast<std::size_t>(end - text.data());
  return {number, trim(text.substr(used))};
}

template <std::size_t N>
double scaled(std::string_view raw, const std::array<UnitFactor, N>& units, std::string_view what_expected,
              bool unit_required) {
  const auto [number, unit] = split(raw, what_expected);
  if (unit.empty()) {
    if (unit_required) {
      throw InputError(fmt::format("expected {}, got '{}' (a number without its unit)", what_expected, raw));
    }
    return number;
  }
  for (const auto& candidate : units) {
    if (candidate.name == unit) return number * candidate.factor;
  }
  throw InputError(
      fmt::format("unknown unit '{}' in '{}': expected {} (units: {})", unit, raw, what_expected, unit_list(units)));
}

std::string trimmed_number(double value) {
  std::string text = fmt::format("{:.4g}", value);
  return text;
}

}  // namespace

SimTime transfer_time(Bytes bytes, Bandwidth bw) {
  const double seconds = static_cast<double>(bytes.value) / bw.bytes_per_second;
  if (!SimTime::fits_seconds(seconds)) {
    throw SimTimeOverflow(fmt::format("{} at {} takes {:.3g} s", format_bytes(bytes), format_bandwidth(bw), seconds));
  }
  return SimTime::from_seconds(seconds);
}

Bytes parse_bytes(std::string_view text) {
  const double value = scaled(text, kSizeUnits, "a size like 4096, 64KiB or 25MB", false);
  if (value < 0) throw InputError(fmt::format("expected a size of zero or more, got '{}'", text));
  if (value > 9.0e18) throw InputError(fmt::format("size '{}' is too large", text));
  const double whole = std::round(value);
  if (std::abs(value - whole) > 1e-6 * std::max(1.0, whole)) {
    throw InputError(fmt::format("size '{}' is not a whole number of bytes", text));
  }
  return Bytes{static_cast<std::int64_t>(whole)};
}

Bandwidth parse_bandwidth(std::string_view text) {
  const double value = scaled(text, kBandwidthUnits, "a bandwidth like 100Gbps or 12.5GB/s", true);
  // A rate past a yottabyte a second (10^12 times an NVLink 5 port) is no link's; past it the flow model's bytes
  // and rates lose their meaning (1e300GB/s is infinite in a double).
  if (!std::isfinite(value) || std::abs(value) > kMaxBytesPerSecond) {
    throw InputError(fmt::format("bandwidth '{}' is too large (at most 1e24 B/s)", text));
  }
  // Nor below a bit a second: a link that slow is a typo, and the topology summary rounded it to 0 B/s.
  if (value > 0 && value < 0.125) {
    throw InputError(fmt::format("bandwidth '{}' is too small (at least 1bps)", text));
  }
  return Bandwidth{value};
}

SimTime parse_duration(std::string_view text) {
  const double seconds = scaled(text, kTimeUnits, "a time like 5us, 1.5ms or 2s", true);
  if (std::abs(seconds) > 9.0e6) throw InputError(fmt::format("time '{}' is too large", text));
  return SimTime::from_seconds(seconds);
}

double parse_seconds(std::string_view text) {
  const double seconds = scaled(text, kSpanUnits, "a time like 36h or 90d", true);
  if (std::abs(seconds) > 1e12) throw InputError(fmt::format("time '{}' is too large", text));
  return seconds;
}

std::int64_t parse_count(std::string_view raw) {
  const std::string_view text = trim(raw);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) {
    throw InputError(
        fmt::format("whole number '{}' is too large (at most {})", raw, std::numeric_limits<std::int64_t>::max()));
  }
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) {
    // A whole number in a double's notation ('1e30', '5.0') is not a count, and says why (found by fuzzing: "not a
    // whole number" read wrong for 1e30).
    double as_double = 0;
    const auto [double_end, double_ec] = std::from_chars(text.data(), text.data() + text.size(), as_double);
    if (!text.empty() && double_ec == std::errc{} && double_end == text.data() + text.size() &&
        std::isfinite(as_double) && as_double == std::floor(as_double)) {
      throw InputError(fmt::format("expected a whole number in digits (at most {}), got '{}'",
                                   std::numeric_limits<std::int64_t>::max(), raw));
    }
    throw InputError(fmt::format("expected a whole number, got '{}'", raw));
  }
  return value;
}

double parse_number(std::string_view raw) {
  const auto [number, unit] = split(raw, "a number");
  if (!unit.empty()) throw InputError(fmt::format("expected a plain number, got '{}'", raw));
  return number;
}

std::string format_bytes(Bytes bytes) {
  static constexpr std::array<std::string_view, 5> kBinary{"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes.value);
  std::size_t unit = 0;
  while (unit + 1 < kBinary.size() && std::abs(value) >= 1024.0) {
    value /= 1024.0;
    ++unit;
  }
  if (unit == 0) return fmt::format("{} B", bytes.value);
  return fmt::format("{} {}", trimmed_number(value), kBinary[unit]);
}

std::string format_bandwidth(Bandwidth bw) {
  static constexpr std::array<std::string_view, 5> kUnits{"B/s", "KB/s", "MB/s", "GB/s", "TB/s"};
  double value = bw.bytes_per_second;
  std::size_t unit = 0;
  while (unit + 1 < kUnits.size() && std::abs(value) >= 1000.0) {
    value /= 1000.0;
    ++unit;
  }
  return fmt::format("{} {}", trimmed_number(value), kUnits[unit]);
}

std::string format_duration(SimTime t) {
  const double ps = static_cast<double>(t.ps());
  const double magnitude = std::abs(ps);
  if (magnitude < 1e3) return fmt::format("{} ps", t.ps());
  if (magnitude < 1e6) return fmt::format("{} ns", trimmed_number(ps * 1e-3));
  if (magnitude < 1e9) return fmt::format("{} us", trimmed_number(ps * 1e-6));
  if (magnitude < 1e12) return fmt::format("{} ms", trimmed_number(ps * 1e-9));
  return fmt::format("{} s", trimmed_number(ps * 1e-12));
}

}  // namespace syncsim
