#pragma once
// From a scenario's `faults:` to the engine's FaultEvents (synchronous_run.hpp): which workers each fault stops,
// checked against the topology and the workers before the run starts.
//
//   - worker_down: the named rank.
//   - link_down: the link (both directions) is gone. Workers are ranks 0..N-1 on GPUs 0..N-1; after removing
//     the link, the workers that still reach each other form groups, the largest group trains on (on a tie, the
//     one with the lowest rank) and the others are cut off. When nobody is cut off (a redundant path exists), the
//     collective that used the link fails all the same (NCCL's connections are set up once, over fixed paths),
//     so the fault stops the job with no worker lost.
//     With restart_from_checkpoint the restart includes the repair: the network is whole again after it.
//     With elastic the cut-off workers leave; when nobody is cut off, the link stays down for the rest of the run
//     and the re-formed ring's routes avoid it (NetworkTimeline::fail_links). When workers left, the survivors'
//     AllReduce is simulated on the first N' GPUs of the intact topology (ResolvedScenario::allreduce's approximation,
//     which cannot place ranks on arbitrary GPUs).
//   - continue is rejected: sync and local_sgd wait for every worker at each collective (the loader rejects it
//     first; this covers scenarios built in code).
//   - a worker_down naming a rank that an earlier elastic fault already removed is an InputError at its rank.
#include <string>
#include <vector>

#include "syncsim/scenario/scenario.hpp"
#include "syncsim/topology/topology.hpp"
#include "syncsim/training/synchronous_run.hpp"

namespace syncsim::run {

struct PlannedFault {
  FaultEvent event;
  FaultKind kind = FaultKind::worker_down;
  std::string target;                // "rank 5" or "nic2 - leaf0"
  std::vector<LinkId> failed_links;  // link_down with elastic and nobody cut off: gone from event.at on
};

// In the scenario's order (the engine orders them by time). Throws InputError at the fault's key.
std::vector<PlannedFault> plan_faults(const Scenario& scenario, const Topology& topology, std::int64_t workers);

// A fault that never took effect because the run ended first (`happened[i]` false for scenario.faults[i]) is an
// error at its `at`: the run length is known only once simulated, and a fault silently dropped hides a mistake
// in the scenario (a time in seconds meant as minutes, say). Throws InputError for the earliest such fault.
void check_faults_happened(const Scenario& scenario, const std::vector<bool>& happened, SimTime run_end);

}  // namespace syncsim::run
