#pragma once
// Deadlock and conservation reports for a collective (private to the library; collective_executor.cpp uses them).
//
// A collective deadlocks when the simulation runs out of events while ranks still wait: for a transfer that no
// rank's plan sends (a missing send), or for one that a peer sends only at a step it never reaches (a cycle of
// waits). The report names who waits for whom, so a broken plan is found from the message alone:
//
//   deadlock in the ring collective: the simulation ran out of events with 2 of 4 ranks waiting: rank 1 waits at
//   step 0 of 3 for 1 of 1 transfer(s), which no rank sends to its step 0 (a send is missing from the plan); ...
#include <cstdint>
#include <string>
#include <vector>

#include "syncsim/collectives/collective_plan.hpp"

namespace syncsim {

// Where one rank stands, as the executor tracks it.
struct RankProgress {
  std::uint32_t step = 0;
  std::uint32_t steps = 0;
  std::uint32_t sends_pending = 0;
  std::uint32_t recvs_needed = 0;
  std::uint32_t recvs_got = 0;
  bool reducing = false;
  bool finished = false;
};

// Finding who a rank waits for walks the whole plan (every rank's every step); beyond this many rank-steps the
// report names the waiting ranks without their peers.
inline constexpr std::uint64_t kMaxDeadlockScan = 4'000'000;

std::string deadlock_report(const CollectivePlan& plan, const std::vector<RankProgress>& ranks);

// The sum of every send of every rank's every step: what the collective must deliver.
double plan_bytes(const CollectivePlan& plan);

}  // namespace syncsim
