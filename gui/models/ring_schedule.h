#pragma once
// RingSchedule: what every rank of a ring AllReduce sends, receives and has reduced at each step — replayed from
// syncsim::RingPlan's chunk ids (sim/include/syncsim/collectives/ring_plan.hpp), never re-derived here.
//
// n ranks, n chunks, 2(n-1) steps: reduce-scatter (steps 0..n-2), then all-gather (steps n-1..2n-3). The state is
// how many ranks' contributions each rank's copy of each chunk holds:
//
//   before step 0:          contributions(r, c) = 1 for every rank and chunk (each rank has its own gradient)
//   reduce-scatter transfer src -> dst of chunk c:   dst(c) += src(c)      (received, then added to its own)
//   all-gather transfer     src -> dst of chunk c:   dst(c)  = src(c)      (= n: the full sum, copied)
//
// all transfers of a step read the state before that step. After n-1 steps rank r holds the full sum of one chunk
// (n contributions); after 2(n-1) steps every rank holds every chunk reduced.
#include <vector>

struct RingTransfer {
  int src = 0;
  int dst = 0;
  int chunk = 0;
  bool reduces = false;  // the receiver adds the chunk into its own (reduce-scatter) rather than keeping a copy
  bool operator==(const RingTransfer&) const = default;
};

class RingSchedule {
 public:
  // Throws syncsim::InputError for fewer than 2 ranks (as RingPlan does).
  explicit RingSchedule(int ranks);

  int rankCount() const { return m_ranks; }
  int stepCount() const { return static_cast<int>(m_transfers.size()); }
  int reduceScatterSteps() const { return m_ranks - 1; }
  bool isReduceScatter(int step) const { return step < reduceScatterSteps(); }

  const std::vector<RingTransfer>& transfers(int step) const { return m_transfers[static_cast<std::size_t>(step)]; }
  // contributions after `completedSteps` steps (0..stepCount()), row-major [rank * n + chunk].
  std::vector<int> stateAfter(int completedSteps) const;

 private:
  int m_ranks;
  std::vector<std::vector<RingTransfer>> m_transfers;
};
