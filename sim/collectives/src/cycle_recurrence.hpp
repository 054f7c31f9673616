#pragma once
// The lockstep recurrence (lockstep_runner.hpp) evaluated many steps at once, exactly, when every step shape has the
// same predecessors: the rings of a ring collective, symmetric or not.
//
// T steps of one shape, x_i(s+1) = max(x_i(s) + a_i, x_{p(i)}(s) + b_i), unroll into paths. Going back from rank i,
// each step either stays at the rank it is at, v (gaining a_v), or moves to its predecessor (gaining b_v). A path
// that moves m times visits i, p(i), ..., p^m(i) and may spend its T - m stays anywhere on the way, so all at the
// largest a it passes:
//
//     x_i(T) = max over m in [0, T] of  x_{p^m(i)}(0) + (b_i + b_{p(i)} + ... + b_{p^{m-1}(i)}) + (T - m) · A_m(i)
//
// with A_m(i) the largest a among the m + 1 ranks visited. Along one cycle of p, unrolled over T positions before
// rank i, A_m is a step function of m: it changes at the ranks whose a exceeds every a after them (the chain of
// previous greater elements). On each of its levels α the term is a line in α, slope the position, intercept x
// minus the prefix sum of b, so each level is one query "largest of these lines at α over a range of positions",
// answered by a segment tree of upper hulls in O(log² N). The cost is O(N log N + Q log² N) for N = cycle length
// + T and Q the levels summed over the ranks (a few each in practice), instead of O(T · N): a ring whose weights do
// not repeat (a degraded link, a leaf group left part-empty) no longer costs the square of its ranks.
//
// Exact: integer picoseconds throughout (128-bit where sums and products could pass 64 bits), and a result past
// the clock is reported as the stepwise recurrence would report it.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "symmetry_classes.hpp"

namespace syncsim::collectives_detail {

class CycleRecurrence {
 public:
  // nullopt unless every shape has the same predecessors, a permutation of the `states` states.
  static std::optional<CycleRecurrence> make(std::span<const Recurrence* const> shapes, std::size_t states);

  // x <- `steps` steps of `shape` applied to x (every state's start time, ps). False, with x unchanged, when the
  // levels would cost more than `max_levels` queries in all (the caller then steps one by one). Throws
  // SimTimeOverflow when a start time passes the clock.
  bool advance(const Recurrence& shape, std::uint64_t steps, std::vector<std::int64_t>& x,
               std::size_t max_levels) const;

 private:
  std::vector<std::vector<std::uint32_t>> cycles_;  // each cycle's states in order: p(cycle[u]) = cycle[u - 1]
};

}  // namespace syncsim::collectives_detail
