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
};

}  // namespace syncsim::convergence
