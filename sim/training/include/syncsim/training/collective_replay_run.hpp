#pragma once
// run_collective_replay: a job's per-step collective sequence (validation's inspector_sequence.hpp, extracted from
// its NCCL Inspector logs) replayed: each rank computes for its gaps and joins its collectives in its own order, one
// after the other; a collective starts when the last of its group's ranks reaches it and holds them all for its time.
//
//   rank a:  |gap a0|   C0   |gap a1|...              C0 on group {a, b}: starts at max(ready_a + gap_a0,
//   rank b:  |gap b0|...wait |  C0  |gap b1|...                                        ready_b + gap_b0)
//
// With every rank's gaps alike (nothing waits) a step takes sum(gaps) + sum(collective times) of any rank.
// Communication is never hidden behind compute here (the log's gaps are the time with no collective on the rank), so a
// rank's exposed communication is its collectives' time and its wait for the group's last rank.
//
//   CollectiveReplaySetup setup{.ranks = 2, .steps = 3};
//   setup.calls = {{.ranks = {0, 1}, .time = SimTime::from_us(40)}};
//   setup.rank_ops = {{{.call = 0, .gap = SimTime::from_us(100)}}, {{.call = 0, .gap = SimTime::from_us(100)}}};
//   run_collective_replay(setup).iteration_times;   // {140us, 140us, 140us}
#include <cstdint>
#include <vector>

#include "syncsim/core/sim_time.hpp"

namespace syncsim {

struct CollectiveReplaySetup {
  // One collective of the step: the ranks it joins and its simulated time.
  struct Call {
    std::vector<int> ranks;
    SimTime time;
  };
  // One of a rank's collectives, after `gap` of compute.
  struct Op {
    int call = 0;
    SimTime gap;
  };
  int ranks = 0;
  std::int64_t steps = 1;
  std::vector<Call> calls;
  std::vector<std::vector<Op>> rank_ops;  // rank_ops[rank]: one step, in order; every call's ranks each hold it once
};

struct CollectiveReplayResult {
  std::vector<SimTime> iteration_times;  // per step: from the previous step's end (the last rank's) to this one's
  SimTime total;
  // Per rank over the whole run: the gaps, the collectives' time, and the time waiting for a group's last rank.
  std::vector<SimTime> compute;
  std::vector<SimTime> communication;
  std::vector<SimTime> wait;
};

// Throws InputError (no place: the caller knows the log) when the ranks' orders deadlock (rank a joins C1 before C2,
// rank b C2 before C1) or a call's ranks do not each hold it once.
CollectiveReplayResult run_collective_replay(const CollectiveReplaySetup& setup);

}  // namespace syncsim
