#pragma once
// A scenario's synchronous data-parallel iteration as a Chakra workload (chakra/ddp_workload.hpp), what
// `syncsim run --chakra` writes as one execution trace per rank for ASTRA-sim, and what `model.chakra` reads back.
//
//   chakra::DdpWorkload w = scenario_chakra_workload(load_scenario("examples/resnet50-dgx-8gpu.yaml"));
//   chakra::encode_execution_trace(chakra::execution_trace(w, rank));   // rank's <prefix>.<rank>.et
//
// The workload is what the synchronous engine runs for one iteration of one rank: every layer's forward and
// backward at the scenario's batch (its profile's or the roofline's), the optimizer step, and the bucket plan with
// each bucket's bytes (with overlap off every bucket waits for the whole backward). What is the engine's and not
// the iteration's stays in the scenario: the collectives' algorithm and the cluster (ASTRA-sim takes its own
// system and network files), stragglers, faults, the framework overhead and the overlap slowdown.
#include <optional>

#include "syncsim/chakra/ddp_workload.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/scenario/scenario.hpp"

namespace syncsim::run {

// The error, at the scenario key responsible, when the scenario's run is not what a DDP execution trace holds
// (plain data parallelism with strategy sync over AllReduce, no gradient compression); nullopt when it is.
std::optional<InputError> chakra_mismatch(const Scenario& scenario);

// Throws chakra_mismatch's error, and one at model.micro_batches for gradient accumulation (a trace holds one pass).
chakra::DdpWorkload scenario_chakra_workload(const Scenario& scenario);

}  // namespace syncsim::run
