#pragma once
// closest_name: the "did you mean" of every error about a misspelt name (a scenario key or value, a network in a
// price file): the candidate nearest to the word by edit distance, when it is near enough to be a likely typo.
//
//   closest_name("iteratons", {"iterations", "warmup_iterations"})  // "iterations"
#include <span>
#include <string_view>

namespace syncsim {

// The candidate closest to `word` (Levenshtein distance), or empty when none is within max(2, |word| / 3) edits.
std::string_view closest_name(std::string_view word, std::span<const std::string_view> candidates);

}  // namespace syncsim
