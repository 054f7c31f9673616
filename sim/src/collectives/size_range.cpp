#include "syncsim/collectives/size_range.hpp"

#include <fmt/format.h>

#include <cmath>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

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
  if (range.min < range.max && !(range.factor > 1.0)) {
    throw InputError(fmt::format("size range '{}' does not advance: FACTOR must be above 1", text));
  }
  return range;
}

std::vector<Bytes> expand(const SizeRange& range) {
  std::vector<Bytes> sizes;
  double size = static_cast<double>(range.min.value);
  while (true) {
    const auto bytes = static_cast<std::int64_t>(std::llround(size));
    if (bytes >= range.max.value) break;
    if (sizes.empty() || bytes > sizes.back().value) sizes.push_back(Bytes{bytes});
    size *= range.factor;
  }
  sizes.push_back(range.max);
  return sizes;
}

}  // namespace syncsim
