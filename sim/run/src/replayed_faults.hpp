#pragma once
// Faults for the engines that run one timeline per class of alike ranks (model-parallel, sharded): the scenario's
// faults planned against the topology as for DDP (fault_plan.hpp), then replayed over the engine's fault-free
// iteration times (fault_replay.hpp: synchronous training stops whole at every fault, so the DDP engine's
// accounting applies without simulating ranks), and the report filled as the DDP engine fills it.
#include <vector>

#include "fault_plan.hpp"
#include "resolved_scenario.hpp"
#include "syncsim/training/fault_replay.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::run {

// The report's throughput over the engine's iteration times (their sum is `total`) with the scenario's faults
// replayed over them (fill_faulted_run); without faults, the times as they are. Call after the workers are filled;
// returns the iteration times the run ends up with (for the convergence proxy's schedule).
std::vector<SimTime> fill_run_timeline(ResolvedScenario& context, TrainingReport& report,
                                       const std::vector<SimTime>& iteration_times, SimTime total);

// The run's timeline: the engine's iterations with the faults' lost work and downtime (the iterations as they are
// without faults).
struct FaultedRun {
  FaultReplay replay;
  std::vector<PlannedFault> planned;
};

// Throws InputError at a fault's key for a rank or link the topology lacks, or a fault after the run's end.
FaultedRun replay_scenario_faults(ResolvedScenario& context, const std::vector<SimTime>& iteration_times);

// The report's throughput over the faulted run; each worker's times stretched by the work the faults threw away
// (its iterations run again) and its idle grown by their downtime; the faults listed. Call after the workers are
// filled for the fault-free run of `fault_free_total`.
void fill_faulted_run(ResolvedScenario& context, TrainingReport& report, const FaultedRun& run,
                      SimTime fault_free_total);

// The report's faults and their sums (lost_work, downtime), as every synchronous engine lists them.
void fill_faults(TrainingReport& report, const std::vector<FaultOutcome>& outcomes,
                 const std::vector<PlannedFault>& planned);

}  // namespace syncsim::run
