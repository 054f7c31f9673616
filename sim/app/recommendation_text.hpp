#pragma once
// How `syncsim memory` prints a recommendation model's tables: where each lives and what it takes per GPU.
#include <ostream>

#include "syncsim/run/recommendation_memory.hpp"

namespace syncsim::app {

void print_embedding_lines(std::ostream& out, const run::RecommendationMemory& memory, std::int64_t gpus);

}  // namespace syncsim::app
