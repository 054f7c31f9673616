#pragma once
// UpdateSchedule: the order in which a simulated run applied its updates, and from which parameters each
// gradient was computed — what the training engines know and the convergence proxy replays
// (convergence_replay.hpp).
//
//   synchronous  every update averages one step of each member worker, all on the current parameters (sync
//                AllReduce, sync parameter servers); members change only when elastic recovery drops ranks
//   local        each member takes one step on its own copy of the parameters; `average` marks the steps after
//                which the copies are averaged (local SGD every K steps)
//   asynchronous one client's gradient, computed on the server's version `read_version`, lands on the current
//                version (async, ssp; hybrid, where a client is a group of workers averaged by AllReduce first)
#include <cstdint>
#include <vector>

#include "syncsim/core/sim_time.hpp"
#include "syncsim/training/gradient_compression.hpp"

namespace syncsim::convergence {

enum class ScheduleKind { synchronous, local, asynchronous };

struct ScheduledUpdate {
  SimTime at;                     // when the update is applied (an iteration's end; server 0's apply)
  std::int64_t source = 0;        // synchronous, local: index in member_sets; asynchronous: the client
  std::int64_t read_version = 0;  // asynchronous: updates the server had applied when the client read it
  bool average = false;           // local: the copies are averaged after this step
};

struct UpdateSchedule {
  ScheduleKind kind = ScheduleKind::synchronous;
  // Data shards. Worker w reads samples w, w + workers, w + 2 workers, ... of the shuffled stream, so one
  // synchronous step of N workers reads the same samples as one step of a single worker with N times the batch.
  std::int64_t workers = 1;
  std::int64_t group_size = 1;  // asynchronous: client c is workers c g ... c g + g - 1
  std::vector<std::vector<std::int64_t>> member_sets;
  std::vector<ScheduledUpdate> updates;  // in the order applied; times non-decreasing
  // synchronous: the DDP hook each update's gradients pass through, from update start_iteration on
  // (gradient_compressor.hpp replays it); none: the exact mean.
  GradientCompression compression;
  // synchronous: how many updates behind the first parameter tensor is read when gradients are computed — the
  // input layer, the proxy's stand-in for a recommendation model's embedding rows; 0: current (sync), 1: as it
  // was before the previous update (hybrid: the dense part synchronous, the tables asynchronous, their rows pulled
  // while the previous batch computed). Every sample reads every input weight, so the proxy is stale on all of
  // them: an upper bound on a sparse table, whose read rows each miss only the updates of batches that touched
  // them (TableStaleness::missed_updates).
  std::int64_t sparse_staleness = 0;
};

}  // namespace syncsim::convergence
