#pragma once
// Message-size sweeps as nccl-tests takes them (-b MIN -e MAX -f FACTOR), written `MIN:MAX[:FACTOR]`.
#include <string_view>
#include <vector>

#include "syncsim/core/units.hpp"

namespace syncsim {

struct SizeRange {
  Bytes min;
  Bytes max;
  double factor = 2;
};

// `8:1G`, `1M:1G:4`, or a single size `64MiB`. Throws InputError for a range that does not advance
// (min > max, or factor <= 1 with min < max) or a size below 1 byte.
SizeRange parse_size_range(std::string_view text);
// min, min*factor, ... up to and including max (and max itself is always the last size).
std::vector<Bytes> expand(const SizeRange& range);

}  // namespace syncsim
