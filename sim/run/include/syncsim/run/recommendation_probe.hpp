#pragma once
// What `syncsim plan --layouts auto` needs of a recommendation scenario before simulating it
// (planner/embedding_search.hpp): its tables, its memory under the placement the scenario (or an override) asks, and
// a lower bound of its iteration.
//
//   lower bound   the busiest GPU's compute (the dense layers and its share of the lookups) and host-link time (the
//                 misses fetched and written back, embedding_tiers.hpp), times the micro-batches, plus the dense
//                 optimizer step: the one-stage timeline with every collective free, which no run undercuts
//
// Tables on parameter servers have no bound here (zero): the servers' engine decides their time.
#include <optional>
#include <vector>

#include "syncsim/compute/recommendation_model.hpp"
#include "syncsim/core/sim_time.hpp"
#include "syncsim/run/recommendation_memory.hpp"
#include "syncsim/run/workspace.hpp"
#include "syncsim/scenario/scenario.hpp"

namespace syncsim::run {

struct RecommendationProbe {
  RecommendationShape shape = {};
  std::int64_t workers = 0;
  bool servers = false;  // training.communication: parameter_server
  RecommendationMemory memory = {};
  SimTime lower_bound = {};
};

// nullopt for a scenario whose model has no tables. Throws InputError as a run of it would (a placement over host
// memory, a rank outside the GPUs, ...).
std::optional<RecommendationProbe> probe_recommendation(const Scenario& scenario, Workspace& workspace);

}  // namespace syncsim::run
