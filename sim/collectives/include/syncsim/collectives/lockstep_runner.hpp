#pragma once
// Lockstep execution of several channels of one collective: the fast path for multi-channel collectives whose
// steps are all uniform (CollectivePlan::uniform_pattern), such as NCCL's C rings on a DGX cluster.
//
// The model. At a uniform step every rank of every channel (n·C in all) sends one transfer and receives one. The
// executor's rule — rank i starts step s+1 once its own send of step s has left and the transfer it receives has
// arrived, plus its reduction — is a max-plus recurrence over the ranks' start times x_i(s):
//
//     x_i(s+1) = max( x_i(s) + drained_i(s),  x_p(s) + arrived_p(s) ) + reduce_i(s)        p = i's sender at s
//
// where drained and arrived are the sender's times from its start. Only the transfer times need the network, and
// they repeat: steps with the same tuple of pattern ids (p_0(s), ..., p_{C-1}(s)) move the same transfers, so each
// distinct tuple ("shape"; a ring AllReduce has two, reduce-scatter and all-gather) is timed once:
//
//   pass 1  every transfer alone on its route: drain = bytes / bottleneck, arrival = drain + latency;
//   pass 2  the recurrence with pass-1 times gives each rank's start offset at the shape's middle occurrence; the
//           shape's n·C transfers then run as one fluid simulation (a fresh FlowModel, each transfer started at
//           its sender's offset), so transfers that share a link (C channels on one GPU's NVLink) share it as
//           much as the schedule overlaps them; the recurrence runs again with those times.
//
// Cost: O(shapes · n·C) flows plus O(steps · n·C) additions, instead of O(steps · n·C) flows. With symmetry
// (ExecutorOptions::symmetry), the recurrence runs once per class of ranks in identical states instead of once per
// rank (symmetry_classes.hpp: exact, a handful of classes on a symmetric cluster), so the additions cost
// O(steps · classes): linear in the ranks, not quadratic. A ring without such symmetry (a degraded link, a leaf
// group left part-empty) has its steps evaluated a run at a time along its cycles (cycle_recurrence.hpp, also
// exact): O(n log² n) per run of one shape. The cyclic
// dependency of a ring holds every rank to the pace of the ring as a whole (the recurrence's cycle mean), which
// is why per-step times from one representative step carry over to all the steps of the shape.
//
// Accuracy. Exact (to the picosecond) where transfers share no link — one channel, or the bandwidth-bound regime
// where the NIC hop dominates — and against the per-flow executors elsewhere within the bound that
// tests/collectives/lockstep_runner_test.cpp states (docs/performance.md has the measured figures). What it cannot
// see is how far the ranks of a per-flow run drift out of step on their own: pass 2 times contention on the
// recurrence's offsets, in which the channels meeting at a GPU tend to move together. Where those offsets
// stagger the channels on a link so far apart that they barely overlap (32 rings on one GPU's NVLink), capacity
// still holds: the collective takes at least the busiest link's bytes at its rate.
//
//   std::vector<const CollectivePlan*> channels = ...;                 // one plan per channel
//   std::optional<LockstepTiming> t = time_lockstep(router, channels, gpus, options);
//   if (t) use(t->time, t->links);                                     // nullopt: run the executors instead
#include <optional>
#include <span>
#include <vector>

#include "syncsim/collectives/collective_executor.hpp"

namespace syncsim {

struct LockstepTiming {
  SimTime time;                      // all channels' steps, without the launch overhead
  ExecutorStats stats;               // summed over channels; every step counts as a bulk step of each channel
  std::vector<LinkTraffic> links;    // every link that carried bytes, sorted by link id (bytes on the wire)
  std::size_t step_simulations = 0;  // fluid simulations run, one per distinct combined step
  // The classes of ranks in identical states the final recurrence ran over (symmetry_classes.hpp); 0 when it ran
  // over every rank of every channel (symmetry off, or too little of it to pay).
  std::size_t symmetry_classes = 0;
  // Without classes: whether the recurrence ran a run of steps at a time along the rings' cycles
  // (cycle_recurrence.hpp, exact for rings whose ranks do not repeat) rather than step by step.
  bool by_cycles = false;
  // The channels timed for classes of channels alike up to a renaming (channel_classes.hpp), whose fluid snapshots
  // ran their transfers alone; 0 when every channel was timed (symmetry off, or no two channels alike).
  std::size_t timed_channels = 0;
};

// nullopt when the channels cannot run in lockstep: a plan with a step that is not uniform (or that breaks the
// uniform contract: one send and one receive per rank, feeding the same step), ranks with different step counts,
// or channels of different lengths or rank counts. `gpus[r]` is the topology node of rank r.
std::optional<LockstepTiming> time_lockstep(Router& router, std::span<const CollectivePlan* const> channels,
                                            const std::vector<NodeId>& gpus, const ExecutorOptions& options);
// The same with channel c's rank r on gpus[c][r]: the channels of several rank groups running one collective at
// once (CollectiveSpec::groups), whose traffic shares the network. With `copies` > 1 each channel stands for that
// many identical ones (the runner's channel copies, channel_copies.hpp): the options' wire bytes are already
// k-fold, a transfer alone on its route is one copy (a k-th of them), every link a channel crosses is shared by
// its copies, and the statistics are the given channels' (the caller counts them for all copies).
std::optional<LockstepTiming> time_lockstep(Router& router, std::span<const CollectivePlan* const> channels,
                                            const std::vector<std::vector<NodeId>>& gpus,
                                            const ExecutorOptions& options, std::uint32_t copies = 1);

}  // namespace syncsim
