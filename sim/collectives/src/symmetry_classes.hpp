#pragma once
// Symmetry classes of a max-plus recurrence (lockstep_runner.hpp): the states that provably keep equal values at
// every step, so that the recurrence can run once per class instead of once per state.
//
// The recurrence, per step shape k (a ring AllReduce has two: reduce-scatter and all-gather):
//
//     x_i(s+1) = max( x_i(s) + self_k[i],  x_{pred_k[i]}(s) + receive_k[i] )        all x_i(0) = 0
//
// A partition of the states is stable when two states of one class have the same weights in every shape and their
// predecessors, in every shape, are again in one class. By induction on s, states of a stable class then hold equal
// values at every step, whatever the order of the shapes: the quotient recurrence over the classes gives every
// state's value exactly, to the picosecond. The coarsest stable partition is found by colour refinement (the
// states first coloured by their weights, then repeatedly by their own colour and their predecessors' until the
// number of colours stops growing).
//
// A symmetric system (the n ranks of a ring on one switch; the 8 rail rings of a DGX cluster, whose ranks differ
// only in their place inside a node) has a handful of classes, independent of its size, so a collective on it costs
// O(steps) instead of O(steps · n). Whatever breaks the symmetry (a straggler's slower sends, a degraded link, a
// busy neighbour's contention seen in the step times) splits the classes where it acts; when that leaves too many
// classes for the quotient to pay, refinement gives up and the caller runs the full recurrence, which is exact too.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace syncsim::collectives_detail {

// One step shape's recurrence: for each state i, its predecessor and its two weights (picoseconds).
struct Recurrence {
  std::vector<std::uint32_t> pred;
  std::vector<std::int64_t> self_weight;
  std::vector<std::int64_t> receive_weight;
};

struct SymmetryClasses {
  std::vector<std::uint32_t> class_of;  // per state; classes numbered in order of their first state
  std::uint32_t count = 0;
  // Each shape's recurrence over the classes (in the order of the shapes given).
  std::vector<Recurrence> quotient;
};

// The coarsest stable partition of `states` states under every shape, or nullopt when it has more than
// `max_classes` classes or does not settle within `max_rounds` rounds of refinement (each costs O(states · shapes)).
std::optional<SymmetryClasses> symmetry_classes(std::span<const Recurrence* const> shapes, std::size_t states,
                                                std::size_t max_classes, std::size_t max_rounds);

}  // namespace syncsim::collectives_detail
