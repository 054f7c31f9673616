#pragma once
// A recommendation scenario resolved: its shape (inline or from the catalog), its embedding placement (the
// scenario's requests, the planner's step for the rest) and its memory per GPU (recommendation_memory.hpp).
#include <optional>

#include "resolved_scenario.hpp"
#include "syncsim/compute/recommendation_model.hpp"
#include "syncsim/run/recommendation_memory.hpp"
#include "syncsim/training/embedding_sharding.hpp"

namespace syncsim::run {

// The model.recommendation shape, or the catalog's for model.name; nullopt for any other model. Throws InputError at
// model.embedding_sharding / embedding_optimizer when they are given for a model that has no tables.
std::optional<RecommendationShape> recommendation_shape(const Scenario& scenario);

// InputError at parallelism's keys: tensor, pipeline, context or expert parallelism, or ZeRO, which a
// recommendation model's engines (sharded tables, or tables on servers) do not take.
void refuse_layer_parallelism(const Scenario& scenario);

// The model without its tables' parameters (their layers kept, for the gathers' times): the dense part that
// memory_check counts and DDP's buckets carry.
ModelSpec dense_part(const ModelSpec& model);

struct RecommendationPlan {
  RecommendationShape shape;
  EmbeddingPlacement placement;
  MemoryRule rule;          // bytes per element and row of the tables (embedding_sharding.hpp)
  MemoryRule weights_rule;  // the weights alone, for the report's split
  RecommendationMemory memory;
};

// Throws InputError at model.embedding_sharding for an unknown table (did you mean), a rank outside the GPUs or a
// shard count that does not divide a table's dimension; at parallelism for a layout the model cannot take.
// With `refuse_host_overflow` false (the planner's probe) a placement over a GPU's host share is reported in the
// memory (host_on_fullest against host_capacity) instead of refused.
RecommendationPlan plan_recommendation(const ResolvedScenario& context, const RecommendationShape& shape,
                                       bool refuse_host_overflow = true);

}  // namespace syncsim::run
