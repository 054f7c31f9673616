#pragma once
// Lockstep for pipelined plans: several channels of a plan whose participants pass data along an acyclic graph —
// NCCL's trees, where each rank's up stream feeds its parent, the root turns the slices around, and the down
// streams feed the children. Their steps are not uniform (a tree rank receives from up to three children), so the
// ring's lockstep (lockstep_runner.hpp) does not apply, and flow by flow a 100 MB tree AllReduce on 8,192 GPUs is
// 23 M flows.
//
// The model is the executor's step rule (collective_plan.hpp) as a max-plus recurrence over the participants' step
// start times x_p(s), with the transfer times taken from the network once instead of flow by flow:
//
//     x_p(s+1) = max( x_p(s),  x_p(s) + drained of each send of p's step s,
//                     x_q(t) + arrived of each send (q, t) that feeds p's step s ) + reduce_p(s)
//
// Because the participants' graph (who sends to whom) has no cycle, the recurrence is evaluated participant by
// participant in topological order, each over all its steps: O(transfers) additions, and memory for the steps of
// the few participants whose senders are part-done. Transfer times, per participant and peer (every slice of a
// tree moves the same bytes to the same peer):
//
//   pass 1  every transfer alone on its route: drain = bytes / bottleneck;
//   pass 2  the recurrence gives each participant the step it is in at the middle of the collective, and when it
//           started; those steps' transfers (one or a few per participant: the pipeline's steady state, every
//           link carrying what it carries while the pipeline is full) run as one fluid simulation with those
//           offsets (fluid_snapshot.hpp), and each peer's drain moves to the one measured there. Four rounds, the
//           later ones moving each drain halfway: one round overshoots (offsets from uncontended times pack the
//           transfers closer than they run), and the rounds settle near the per-flow result.
//
// Channels alike up to a renaming of their participants and links (the tree channel pairs on the rails of a DGX
// cluster) are timed once per class (channel_classes.hpp): the sweeps visit one channel of each class and the
// snapshot runs its transfers on the classes' links, the same model at a fraction of the cost (an eighth on 8
// rails). `ExecutorOptions::symmetry` off times every channel; tests/collectives/symmetry_test.cpp compares both.
//
// Exact (to the picosecond, against the executors) where transfers share no link; elsewhere an approximation
// within the bound tests/collectives/pipeline_lockstep_test.cpp states and docs/collectives.md measures. Capacity
// holds whatever the times: the collective takes at least the busiest link's bytes at its rate.
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "syncsim/collectives/lockstep_runner.hpp"

namespace syncsim::collectives_detail {

// The channels read into the recurrence (participants, peers, routes) and its pass 1: what alone_bound computes and
// time_pipeline begins with, kept so that a tree `auto` bounds and then runs is read once (at 100,000 GPUs that is
// seconds).
struct PipelinePass;
struct PipelinePassDeleter {
  void operator()(PipelinePass* pass) const;
};
using PipelineStart = std::unique_ptr<PipelinePass, PipelinePassDeleter>;

// nullopt when the plans' participants send in a cycle (a ring: lockstep_runner.hpp), a participant sends to more
// than kMaxPeers peers, or a step's receives do not add up (the executors then run it and report the deadlock).
// `start`, when given, is alone_bound's for the same channels, GPUs and options.
std::optional<LockstepTiming> time_pipeline(Router& router, std::span<const CollectivePlan* const> channels,
                                            const std::vector<std::vector<NodeId>>& gpus,
                                            const ExecutorOptions& options, PipelineStart start = nullptr);

// A lower bound on the channels' time on the executors and on time_pipeline: pass 1, every transfer alone on its
// route, less a rounding slack. Sharing a link only slows a transfer, and the recurrence's finish only grows with
// its transfers' times. `auto` skips a tree whose bound ranks behind the best candidate (a tree's step latencies,
// which the busiest-link bound does not see, are in it). nullopt where time_pipeline would decline the plans.
// When `keep` is given, it receives the pass for time_pipeline.
std::optional<SimTime> alone_bound(Router& router, std::span<const CollectivePlan* const> channels,
                                   const std::vector<std::vector<NodeId>>& gpus, const ExecutorOptions& options,
                                   PipelineStart* keep = nullptr);

}  // namespace syncsim::collectives_detail
