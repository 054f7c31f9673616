#pragma once
// `syncsim plan --layouts auto` on a recommendation model (docs/recommendation.md, "The planner's search"): per plan
// point, the fastest embedding placement that fits, found as layout_search.hpp finds a layout — candidates, memory
// first, a lower bound, then simulation in the order of the bounds until no bound can win.
//
//   candidates    a small enumeration of sharding mixes, as TorchRec's planner enumerates sharding types and
//                 compute kernels per table, here per class of tables: the large tables (each above the mean
//                 table's elements: the few that hold most of the parameters) take one of
//                   table_wise | row_wise | column_wise (shards of 32 columns, TorchRec's DEFAULT_CW_DIM)
//                   | table_wise, row_wise or column_wise in host memory (fused_uvm_caching at TorchRec's default
//                     cache_load_factor 0.2) | row_wise or table_wise fused_uvm
//                 and the small tables one of table_wise | row_wise | data_parallel: at most 8 x 3 mixes, and the
//                 scenario's own placement. Each mix is a model.embedding_sharding override; within it the tables
//                 asked table_wise without a rank go through the greedy partitioner every run uses
//                 (plan_embedding_placement: largest first, emptiest GPU), so `syncsim run --set` of the chosen
//                 override is the same placement and the same numbers
//   memory        each mix probed without simulating (run/recommendation_probe.hpp): it fits when its fullest GPU
//                 does (with --memory-headroom) and every GPU's host share holds its host-memory tables; a mix over
//                 host memory is refused by the run's own check and counted as not fitting
//   bound         the busiest GPU's compute and host-link time plus the dense step (every collective free)
//   simulation    the scenario's own placement first when it fits, then the others by bound, each simulated until the
//                 next bound is no faster than the best time, at most --max-simulations per point
//
// With training.communication parameter_server the tables are on the servers and the candidates are the server
// counts instead: 1, 2, 4, ... up to the GPU count, and the scenario's own; each simulated, the most servers first
// (no bound prunes them: the servers' engine decides their time), at most --max-simulations.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "syncsim/planner/layout_search.hpp"
#include "syncsim/planner/sweep_point.hpp"
#include "syncsim/run/workspace.hpp"
#include "syncsim/scenario/scenario.hpp"

namespace syncsim::planner {

// One candidate: the overrides that ask for it and its label (what plan.csv's layout column shows).
struct EmbeddingMix {
  std::string label;
  std::vector<std::string> overrides;
};

// Whether the scenario's model is a recommendation model (its planner search is this one).
bool searches_embeddings(const Scenario& base);

// The mixes of the tables (in the model's order, `workers` GPUs), as above; duplicates (a class with no table) once.
std::vector<EmbeddingMix> embedding_mixes(const std::vector<EmbeddingTable>& tables, std::int64_t workers);

// Searches one plan point's placements at `global_batch` samples per iteration. Throws InputError (at --gpus) when
// the point's batch does not divide over its GPUs, or no candidate can be simulated.
SearchedPoint search_embedding_placements(const std::filesystem::path& scenario, const SweepPoint& point,
                                          std::int64_t global_batch, const LayoutSearchOptions& options,
                                          run::Workspace& workspace);

// The plan header's line: candidates, simulated, pruned, not fitting, over the points.
std::string embedding_search_summary(const std::vector<SearchedPoint>& points);

}  // namespace syncsim::planner
