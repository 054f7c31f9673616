#include "syncsim/collectives/size_range.hpp"

#include <fmt/format.h>

#include <cmath>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

// How many multiplications by FACTOR take MIN past MAX: log(MAX / MIN) / log(FACTOR), computed in doubles so that
// a factor next to 1 (1.0000001) or a huge one (1e19) cannot overflow anything.
double steps_to_cover(const SizeRange& range) {
  if (range.min >= range.max) return 0;
  return std::ceil(std::log(static_cast<double>(range.max.value) / static_cast<double>(range.min.value)) /
                   std::log(range.factor));
}

}  // namespace

SizeRange parse_size_range(std::string_view text) {
  std::vector<std::string_view> parts;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t colon = text.find(':', begin);
    parts.push_back(text.substr(begin, colon == std::string_view::npos ? std::string_view::npos : colon - begin));
    if (colon == std::string_view::npos) break;
    begin = colon + 1;
  }
  if (parts.size() > 3) throw InputError(fmt::format("expected MIN:MAX[:FACTOR], got '{}'", text));
  SizeRange range;
  range.min = parse_bytes(parts[0]);
  range.max = parts.size() >= 2 ? parse_bytes(parts[1]) : range.min;
  if (parts.size() == 3) range.factor = parse_number(parts[2]);
  if (range.min.value < 1) throw InputError(fmt::format("sizes start at 1 byte, got '{}'", parts[0]));
  if (range.min > range.max) {
    throw InputError(fmt::format("size range '{}' does not advance: MIN {} is above MAX {}", text,
                                 format_bytes(range.min), format_bytes(range.max)));
  }
  check_size_range(range, text);
  return range;
}

void check_size_range(const SizeRange& range, std::string_view text) {
  if (!std::isfinite(range.factor)) {
    throw InputError(fmt::format("size range '{}': FACTOR must be a finite number, got {}", text, range.factor));
  }
  if (range.min < range.max && !(range.factor > 1.0)) {
    throw InputError(fmt::format("size range '{}' does not advance: FACTOR must be above 1", text));
  }
  // A factor next to 1 makes progress only in the fractions: 8:1G:1.0000001 would multiply 186 million times for
  // sizes that mostly round to the same byte count. Refused before expanding, with the limit.
  const double steps = steps_to_cover(range);
  if (steps > static_cast<double>(kMaxSizeSteps)) {
    throw InputError(
        fmt::format("size range '{}': FACTOR {} is too close to 1: it takes {:.0f} steps from {} to {} "
                    "(at most {}; nccl-tests' usual factor is 2)",
                    text, range.factor, steps, range.min.value, range.max.value, kMaxSizeSteps));
  }
}

std::vector<Bytes> expand(const SizeRange& range) {
  std::vector<Bytes> sizes;
  double size = static_cast<double>(range.min.value);
  const auto max = static_cast<double>(range.max.value);
  // Compared as doubles before rounding: a size beyond int64 (8 * 1e19) is past MAX, not an llround overflow.
  for (std::int64_t step = 0; size < max && step <= kMaxSizeSteps; ++step) {
    const auto bytes = static_cast<std::int64_t>(std::llround(size));
    if (bytes >= range.max.value) break;
    if (sizes.empty() || bytes > sizes.back().value) sizes.push_back(Bytes{bytes});
    size *= range.factor;
  }
  sizes.push_back(range.max);
  return sizes;
}

}  // namespace syncsim
