#pragma once
// How `syncsim memory` prints a recommendation model's tables: where each lives and what it takes per GPU; and how
// `syncsim run` prints asynchronous tables' staleness.
#include <ostream>
#include <vector>

#include "syncsim/training/training_report.hpp"

#include "syncsim/run/recommendation_memory.hpp"

namespace syncsim::app {

void print_embedding_lines(std::ostream& out, const run::RecommendationMemory& memory, std::int64_t gpus);

// One line: how many iterations a read misses, and the three tables whose read rows miss the most updates.
void print_table_staleness(std::ostream& out, const std::vector<TableStaleness>& tables);

}  // namespace syncsim::app
