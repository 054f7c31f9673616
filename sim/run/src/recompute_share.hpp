#pragma once
// The time shares' recompute (training_report.hpp): under activation checkpointing a rank's backward runs the forward
// of the layers it did not keep again. The engines without a per-layer timeline (DDP, sharded) report compute as one
// time per rank; the forward run again is the same share of it as of the layers' forward and backward, since
// stragglers and micro-batches scale every layer alike.
#include "resolved_scenario.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::run {

// Each worker's recompute: its compute x the share of `layers` (the rank's layer times) that is forward run again.
void split_recompute(TrainingReport& report, const ResolvedScenario& context, const LayerTimes& layers);

}  // namespace syncsim::run
