#include "symmetry_classes.hpp"

#include <algorithm>
#include <unordered_map>

#include "hash_mix.hpp"

namespace syncsim::collectives_detail {

namespace {

// Colours the states by their keys (`width` numbers per state, state after state): equal keys, equal colour,
// colours numbered in order of their first state, so the numbering is deterministic. Returns the colour count.
std::uint32_t colour_by_keys(const std::vector<std::int64_t>& keys, std::size_t width, std::size_t states,
                             std::vector<std::uint32_t>& colour) {
  // The table holds a state standing for each colour; hashing and comparing read that state's key in place, so
  // no key is copied.
  const std::int64_t* data = keys.data();
  const auto hash = [data, width](std::uint32_t state) {
    std::uint64_t h = width;
    for (std::size_t j = 0; j < width; ++j) h = splitmix(h ^ static_cast<std::uint64_t>(data[state * width + j]));
    return static_cast<std::size_t>(h);
  };
  const auto equal = [data, width](std::uint32_t a, std::uint32_t b) {
    return std::equal(data + a * width, data + (a + 1) * width, data + b * width);
  };
  std::unordered_map<std::uint32_t, std::uint32_t, decltype(hash), decltype(equal)> first_of(64, hash, equal);
  colour.resize(states);
  for (std::uint32_t i = 0; i < states; ++i) {
    const auto next = static_cast<std::uint32_t>(first_of.size());
    colour[i] = first_of.try_emplace(i, next).first->second;
  }
  return static_cast<std::uint32_t>(first_of.size());
}

}  // namespace

std::optional<SymmetryClasses> symmetry_classes(std::span<const Recurrence* const> shapes, std::size_t states,
                                                std::size_t max_classes, std::size_t max_rounds) {
  if (shapes.empty() || states == 0) return std::nullopt;
  const std::size_t shape_count = shapes.size();
  std::vector<std::int64_t> keys;
  std::vector<std::uint32_t> colour;
  std::vector<std::uint32_t> refined;

  // Round 0: the weights of every shape.
  std::size_t width = 2 * shape_count;
  keys.resize(states * width);
  for (std::size_t i = 0; i < states; ++i) {
    for (std::size_t k = 0; k < shape_count; ++k) {
      keys[i * width + 2 * k] = shapes[k]->self_weight[i];
      keys[i * width + 2 * k + 1] = shapes[k]->receive_weight[i];
    }
  }
  std::uint32_t count = colour_by_keys(keys, width, states, colour);

  // Then a state's own colour and its predecessors' in every shape, until nothing splits. Where every shape has the
  // same predecessors (a ring's reduce-scatter and all-gather go round one ring), each round looks twice as far
  // back as the last (the colour of the state 2^k predecessors up: pointer doubling), so a ring whose ranks repeat
  // with period p settles in log2(p) rounds instead of p; otherwise one predecessor further each round.
  const bool one_pred = std::all_of(shapes.begin(), shapes.end(),
                                    [&](const Recurrence* shape) { return shape->pred == shapes[0]->pred; });
  std::vector<std::uint32_t> jump = shapes[0]->pred;
  std::vector<std::uint32_t> next_jump;
  const std::size_t links = one_pred ? 1 : shape_count;
  width = 1 + links;
  keys.resize(states * width);
  bool settled = false;
  for (std::size_t round = 0; round < max_rounds && count <= max_classes; ++round) {
    for (std::size_t i = 0; i < states; ++i) {
      keys[i * width] = colour[i];
      if (one_pred) {
        keys[i * width + 1] = colour[jump[i]];
      } else {
        for (std::size_t k = 0; k < shape_count; ++k) keys[i * width + 1 + k] = colour[shapes[k]->pred[i]];
      }
    }
    const std::uint32_t refined_count = colour_by_keys(keys, width, states, refined);
    // Each new colour lies inside an old one, so an unchanged count is an unchanged partition: the colour of a
    // state then fixes its predecessors' (2^k up, and by induction all of them): stable.
    if (refined_count == count) {
      settled = true;
      break;
    }
    colour.swap(refined);
    count = refined_count;
    if (one_pred) {
      next_jump.resize(states);
      for (std::size_t i = 0; i < states; ++i) next_jump[i] = jump[jump[i]];
      jump.swap(next_jump);
    }
  }
  if (!settled || count > max_classes) return std::nullopt;

  SymmetryClasses classes;
  classes.count = count;
  std::vector<std::uint32_t> first_state(count, ~std::uint32_t{0});
  for (std::uint32_t i = 0; i < states; ++i) {
    if (first_state[colour[i]] == ~std::uint32_t{0}) first_state[colour[i]] = i;
  }
  classes.quotient.resize(shape_count);
  for (std::size_t k = 0; k < shape_count; ++k) {
    Recurrence& q = classes.quotient[k];
    q.pred.resize(count);
    q.self_weight.resize(count);
    q.receive_weight.resize(count);
    for (std::uint32_t c = 0; c < count; ++c) {
      const std::uint32_t i = first_state[c];
      q.pred[c] = colour[shapes[k]->pred[i]];
      q.self_weight[c] = shapes[k]->self_weight[i];
      q.receive_weight[c] = shapes[k]->receive_weight[i];
    }
  }
  classes.class_of = std::move(colour);
  return classes;
}

}  // namespace syncsim::collectives_detail
