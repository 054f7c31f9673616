#pragma once
// model.collectives: a job's per-step collective sequence (validation/inspector_sequence.hpp) replayed on the
// scenario's cluster by the replay engine (training/collective_replay_run.hpp).
//
// Global rank g of the log is worker g of the scenario (the same numbering); a communicator is the group of its
// members' workers. Communicators with the same calls and the same size over disjoint ranks (the tensor-parallel
// groups of a layout, say) make each call at once in every one of them, sharing the network: the call is simulated once
// over all of them (ResolvedScenario::group_collective), algorithm and channels as the scenario says (the plugin's JSON
// records name no algorithm). A communicator of one rank moves nothing (time zero).
#include "resolved_scenario.hpp"
#include "syncsim/training/collective_replay_run.hpp"
#include "syncsim/validation/inspector_sequence.hpp"

namespace syncsim::run {

// The sequence of model.collectives' logs; InputError at the key (naming the file, line and key inside the log).
CollectiveSequence scenario_collective_sequence(const Scenario& scenario);

// The replay's setup on the context's cluster for `steps` steps; InputError at model.collectives when the log's job has
// more ranks than the run has workers (or fewer: cluster.workers must say the log's count).
CollectiveReplaySetup collective_replay_setup(ResolvedScenario& context, const CollectiveSequence& sequence,
                                              std::int64_t steps);

}  // namespace syncsim::run
