#pragma once
// Message-size sweeps as nccl-tests takes them (-b MIN -e MAX -f FACTOR), written `MIN:MAX[:FACTOR]`.
#include <cstdint>
#include <string_view>
#include <vector>

#include "syncsim/core/units.hpp"

namespace syncsim {

struct SizeRange {
  Bytes min;
  Bytes max;
  double factor = 2;
};

// The most multiplications by FACTOR a range may take from MIN to MAX (8:1G at factor 2 takes 27). Each size is a
// simulation or a benchmark step; a factor so close to 1 that it needs more steps is refused, not expanded.
inline constexpr std::int64_t kMaxSizeSteps = 100000;

// `8:1G`, `1M:1G:4`, or a single size `64MiB`. Throws InputError for a range that does not advance
// (min > max, or factor <= 1 with min < max), a size below 1 byte, or a factor check_size_range refuses.
SizeRange parse_size_range(std::string_view text);
// The factor of a range whose ends are already checked (1 <= min <= max): finite, above 1 when min < max, and
// taking at most kMaxSizeSteps steps. `text` names the range in the message. Throws InputError.
void check_size_range(const SizeRange& range, std::string_view text);
// min, min*factor, ... up to and including max (and max itself is always the last size); each byte count once.
std::vector<Bytes> expand(const SizeRange& range);

}  // namespace syncsim
