#pragma once
// The routes a Router has computed, by (source, destination). A 100,000-GPU collective asks for millions of
// routes, over and over: the table is open addressing with linear probing on one flat array of keys (a lookup
// reads one cache line where a node-based map read two), kept at most half full; the routes live in a deque,
// whose elements never move, so the references the Router hands out stay valid as the table grows.
#include <bit>
#include <cstdint>
#include <deque>
#include <vector>

#include "syncsim/topology/router.hpp"

namespace syncsim::topology_detail {

class RouteTable {
 public:
  // The route stored for `key`, or nullptr.
  const Route* find(std::uint64_t key) const {
    if (slots_.empty()) return nullptr;
    for (std::size_t at = home(key);; at = (at + 1) & mask()) {
      if (slots_[at].key == key) return &routes_[slots_[at].index];
      if (slots_[at].key == kEmpty) return nullptr;
    }
  }

  // Stores the route for a key not yet in the table.
  const Route& insert(std::uint64_t key, Route route) {
    if (2 * (routes_.size() + 1) > slots_.size()) grow();
    routes_.push_back(std::move(route));
    place(key, static_cast<std::uint32_t>(routes_.size() - 1));
    return routes_.back();
  }

 private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};  // no (src, dst) pair: node ids are below 2^32 - 1
  struct Slot {
    std::uint64_t key = kEmpty;
    std::uint32_t index = 0;
  };

  std::size_t mask() const { return slots_.size() - 1; }
  // Fibonacci hashing: the top bits of key * 2^64/phi, which spreads the pairs' regular ids over the table.
  std::size_t home(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> (64 - std::countr_zero(slots_.size())));
  }
  void place(std::uint64_t key, std::uint32_t index) {
    std::size_t at = home(key);
    while (slots_[at].key != kEmpty) at = (at + 1) & mask();
    slots_[at] = Slot{key, index};
  }
  void grow() {
    const std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : 2 * old.size(), Slot{});
    for (const Slot& slot : old) {
      if (slot.key != kEmpty) place(slot.key, slot.index);
    }
  }

  std::vector<Slot> slots_;  // a power of two in size
  std::deque<Route> routes_;
};

}  // namespace syncsim::topology_detail
