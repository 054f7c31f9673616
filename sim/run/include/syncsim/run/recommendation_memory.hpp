#pragma once
// A recommendation model's memory per GPU under its embedding placement (docs/recommendation.md): what `syncsim
// memory` and every run's report say of it.
//
//   dense part     memory_check of the model with its tables left out: the MLPs and the interaction, data parallel
//                  (weights, gradients, optimizer state, activations, the allocator's terms)
//   tables         each table's bytes on the fullest GPU (embedding_sharding.hpp's MemoryRule): sharded ones their
//                  weights and the fused optimizer's state, data-parallel ones weights, gradient and dense state
//   pooled         on the fullest GPU, the pooled embeddings it computes for the job's W x B samples and their
//                  gradients (table- and column-wise), and row-wise partial sums: 2 x W·B·columns x element bytes
//
// The tables' bytes join weights, gradients and optimizer_state, the pooled ones activations; all of them are held
// through the step, so they add to allocated, reserved and total alike.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "syncsim/compute/memory_check.hpp"
#include "syncsim/scenario/scenario.hpp"
#include "syncsim/training/embedding_sharding.hpp"

namespace syncsim::run {

struct TableMemory {
  std::string name;
  TableSharding sharding;   // its kernel: the memory tier (embedding_tiers.hpp)
  Bytes on_fullest;         // on the fullest GPU
  Bytes largest;            // on the GPU that holds most of this table
  Bytes replicated;         // what the table would take on every GPU replicated (data_parallel)
  Bytes host_largest = {};  // in host memory, on the GPU's host share that holds most of it (fused: 0)
  double hit_rate = 1;      // the share of its lookups GPU memory serves (fused 1, fused_uvm 0)
};

// With communication parameter_server the tables live on the servers (docs/recommendation.md, section 8): what
// they hold there, and what a worker's GPU keeps of them (the rows its batch pulls, and their gradients).
struct ServerTable {
  std::string name;
  Bytes on_servers;        // weights and the embedding optimizer's state, over all the servers
  double rows_pulled = 0;  // distinct rows one worker's batch pulls (expected_unique_rows)
};
struct ServerTables {
  std::int64_t count = 0;
  std::string host;   // cpu or gpu (parameter_servers.host)
  Bytes per_server;   // every table's bytes over the servers
  Bytes rows_on_gpu;  // on each worker's GPU: the pulled rows and their gradients
  std::vector<ServerTable> tables;
};

struct RecommendationMemory {
  MemoryReport report;  // the fullest GPU, dense part and tables
  std::int64_t fullest_rank = 0;
  std::vector<TableMemory> tables;  // in the model's order
  Bytes embeddings;                 // the tables on the fullest GPU
  Bytes pooled;                     // the pooled embeddings and their gradients there
  Bytes dense_total;                // the dense part's total alone (allocator terms included)
  bool planned = false;             // some table was placed by the planner
  // Host-memory tiers: each GPU's share of its node's host memory (nullopt where the GPU's catalog entry has no
  // reference node), and the rank whose tables hold most of theirs.
  std::optional<Bytes> host_capacity = std::nullopt;
  std::int64_t fullest_host_rank = 0;
  Bytes host_on_fullest = {};
  std::optional<ServerTables> servers = std::nullopt;  // the tables on parameter servers; tables is then empty
};

// nullopt for a scenario whose model is not a recommendation model. Throws InputError as a run would.
std::optional<RecommendationMemory> scenario_recommendation_memory(const Scenario& scenario);

}  // namespace syncsim::run
