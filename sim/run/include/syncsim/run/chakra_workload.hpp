#pragma once
// A scenario's iteration as Chakra workloads (chakra/ddp_workload.hpp, chakra/layout_workload.hpp): what
// `syncsim run --chakra` writes as one execution trace per rank for ASTRA-sim, and what `model.chakra` reads back.
//
//   const run::ChakraExport traces = run::scenario_chakra_export(load_scenario("examples/resnet50-dgx-8gpu.yaml"));
//   chakra::encode_execution_trace(traces.trace(rank));   // rank's <prefix>.<rank>.et
//
// Plain data parallelism is the DDP engine's iteration: every layer's forward and backward at the scenario's batch
// (its profile's or the roofline's), the optimizer step, and the bucket plan with each bucket's bytes (with overlap
// off every bucket waits for the whole backward); under ZeRO or HSDP the sharded engine's. Full sharding beside
// tensor or context parallelism without a pipeline (FSDP + TP) is the sharded engine's over a layout's ranks: one
// rank's layers with their tensor and context collectives (a DDP workload with a layout). A model-parallel layout
// (tensor, pipeline, context, expert parallelism, with or without ZeRO over the data-parallel groups) is the
// model-parallel engine's: each stage's passes in its schedule's order with their collectives, transfers, buckets and
// step (layout_communication.hpp). What is the engine's and not the iteration's stays in the scenario: the collectives'
// algorithm and the cluster (ASTRA-sim takes its own system and network files), stragglers, faults, the framework
// overhead and the overlap slowdown.
#include <cstdint>
#include <optional>
#include <utility>
#include <variant>

#include "syncsim/chakra/ddp_workload.hpp"
#include "syncsim/chakra/layout_workload.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/scenario/scenario.hpp"

namespace syncsim::run {

// The error, at the scenario key responsible, when the scenario's run is not one a trace holds: a strategy other
// than sync over AllReduce, gradient compression, tensor-parallel communication overlap beside full sharding
// without a pipeline; nullopt when it is. Gradient accumulation is held: each micro-batch a pass.
std::optional<InputError> chakra_mismatch(const Scenario& scenario);
// Whether the scenario's iteration is a model-parallel layout's (tensor, pipeline, context or expert above 1).
bool chakra_layout(const Scenario& scenario);

class ChakraExport {
 public:
  explicit ChakraExport(std::variant<chakra::DdpWorkload, chakra::LayoutWorkload> workload)
      : workload_(std::move(workload)) {}
  std::int64_t ranks() const;
  chakra::ExecutionTrace trace(std::int64_t rank) const;
  // The fewest and most nodes a rank's file holds.
  std::pair<std::size_t, std::size_t> nodes() const;
  const std::variant<chakra::DdpWorkload, chakra::LayoutWorkload>& workload() const { return workload_; }

 private:
  std::variant<chakra::DdpWorkload, chakra::LayoutWorkload> workload_;
};

// Throws chakra_mismatch's error.
ChakraExport scenario_chakra_export(const Scenario& scenario);
// model.chakra's trace as a DDP run's workload; nullopt for a layout (LayoutCommunication reads its traces). What
// does not fit (a run no trace holds, a file that is not a trace, a node it cannot map, micro-batches other than the
// scenario's) is an error at the key, naming the file and the node.
std::optional<chakra::DdpWorkload> imported_chakra_workload(const Scenario& scenario);
// The DDP workload alone (plain data parallelism; InputError at parallelism for a layout).
chakra::DdpWorkload scenario_chakra_workload(const Scenario& scenario);

}  // namespace syncsim::run
