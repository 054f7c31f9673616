#pragma once
// A recommendation model's tables on parameter servers (recommendation_servers_run.cpp): per table, what one worker
// pulls and pushes per iteration (sparse_exchange.hpp), what the servers hold, and a worker GPU's memory.
#include <string>
#include <vector>

#include "resolved_scenario.hpp"
#include "syncsim/compute/memory_check.hpp"
#include "syncsim/compute/recommendation_model.hpp"
#include "syncsim/run/recommendation_memory.hpp"
#include "syncsim/training/bucket_plan.hpp"
#include "syncsim/training/sparse_exchange.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::run {

struct RecommendationServers {
  std::vector<std::string> names;      // per table, in the model's order
  std::vector<SparseExchange> tables;  // per table, one worker's exchange in one iteration
  double row_bytes = 0;                // one row on the wire: 8 + d·e
  double update_bytes_per_row = 0;     // a server's memory traffic to update one row
  double push_bytes = 0;               // per worker per iteration, every table
  double pull_bytes = 0;
  Bytes held_per_server;  // every table's weights and optimizer state, over the servers
  SimTime dense_step;     // the dense optimizer over the dense parameters, on a worker
  MemoryReport memory;    // a worker's GPU: the dense part, and the pulled rows with their gradients
};

RecommendationServers recommendation_servers(const ResolvedScenario& context, const RecommendationShape& shape);

// What `syncsim memory` and the report say of the tables on servers: a worker's GPU (the dense part and the pulled
// rows) and the servers' share of every table.
RecommendationMemory servers_memory(const ResolvedScenario& context, const RecommendationShape& shape);

// Asynchronous tables: a read row misses one iteration of every worker's updates, of which the batches that touched
// it: W x read_touched_share(table, B x L) on average.
std::vector<TableStaleness> table_staleness(const ResolvedScenario& context, const RecommendationShape& shape);

// The report's recommendation parts: a worker's memory, the one-GPU reference (the tables' update on the GPU, the
// dense optimizer over the dense part), and the communication groups with their exposed time per iteration: the
// dense AllReduce (dense: allreduce) and the sparse exchange (with dense: servers, every push and pull).
struct ExposedExchange {
  SimTime dense;   // past the end of backward, waiting on the dense AllReduce
  SimTime sparse;  // past the worker's own work, waiting on the servers
};
void finish_servers_report(const ResolvedScenario& context, const RecommendationServers& sparse,
                           const BucketPlan& dense, bool dense_on_servers, ExposedExchange exposed,
                           TrainingReport& report);

}  // namespace syncsim::run
