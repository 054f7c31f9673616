#pragma once
// A run's memory, estimated from the topology spec before anything is built, against a budget: a scenario that would
// need more (a million GPUs, say) fails at once with a clear message instead of swapping for minutes.
//
// The estimate is per GPU of the topology: kBytesPerGpu covers the topology, its routes, the per-rank engine state
// and a trace of the last iteration (measured: a resnet50 iteration on 4,096 GPUs peaks at 37 MB, about 9 KiB per
// GPU; the estimate keeps a margin). Topologies whose size the spec does not say (a file) are not checked here.
//
// Budget: SYNCSIM_MEMORY_BUDGET (a size such as 32GB) or kDefaultBudget.
#include <cstdint>
#include <optional>
#include <string>

#include "syncsim/core/units.hpp"
#include "syncsim/scenario/scenario.hpp"
#include "syncsim/topology/topology_spec.hpp"

namespace syncsim::run {

inline constexpr std::int64_t kBytesPerGpu = 16 << 10;
inline constexpr Bytes kDefaultBudget{std::int64_t{8} << 30};

// The GPU count a generator spec asks for, when its keys say it (ring, mesh, switch, fattree: n; dgx: nodes x
// gpus; torus: the product of dims); nullopt otherwise, or when the text does not parse (the generator reports it).
std::optional<std::int64_t> planned_gpus(const TopologySpec& spec);

// The budget from SYNCSIM_MEMORY_BUDGET, or kDefaultBudget; InputError naming the variable when it does not parse.
Bytes memory_budget();

// Throws InputError at the topology spec (under `key`) when planned_gpus x kBytesPerGpu exceeds the budget.
void check_memory_budget(const TopologySpec& spec, const std::string& key = "cluster.topology");

// Beyond kBytesPerGpu, what a run keeps per iteration (its time, the ranks in it), per rank and iteration (the
// parameter-server engine's per-worker iteration times and updates), per layer and micro-batch (the iteration's
// compute phases) and per rank and micro-batch (the micro-batches' start times and their forward and backward spans
// in the trace). Sizes with a margin, like kBytesPerGpu.
inline constexpr std::int64_t kBytesPerIteration = 64;
inline constexpr std::int64_t kBytesPerRankIteration = 64;
inline constexpr std::int64_t kBytesPerLayerMicroBatch = 96;
inline constexpr std::int64_t kBytesPerRankMicroBatch = 512;
// Per client, server and iteration with parameter servers: the push and pull messages, their spans in the trace
// (measured: 4,096 servers, 8 workers and 2 iterations write a 70 MB trace, about 1 KiB each).
inline constexpr std::int64_t kBytesPerServerMessage = 1024;

// Throws InputError, keyed by the count that dominates, when a scenario's sizes (iterations, workers, layers,
// micro-batches) ask for more memory than the budget, before anything is allocated. Overflow-free: the estimate is
// a double.
void check_run_memory(const Scenario& scenario);

}  // namespace syncsim::run
