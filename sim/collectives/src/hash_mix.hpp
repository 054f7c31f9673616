#pragma once
// splitmix64's finaliser: keys that differ in a few low bits (colours, picosecond weights, link ids) spread over the
// whole word. Hashes here fold a value in as h = splitmix(h ^ value).
#include <cstdint>

namespace syncsim::collectives_detail {

inline std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace syncsim::collectives_detail
