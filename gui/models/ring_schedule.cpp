#include "models/ring_schedule.h"

#include <algorithm>

#include "syncsim/collectives/ring_plan.hpp"

RingSchedule::RingSchedule(int ranks) : m_ranks(ranks) {
  const auto n = static_cast<std::size_t>(std::max(ranks, 0));
  // The byte count only scales the plan's transfers; one byte per chunk keeps them whole.
  const syncsim::RingPlan plan(syncsim::CollectiveOp::allreduce, n, syncsim::Bytes{static_cast<std::int64_t>(n)});
  const std::uint32_t steps = plan.step_count(syncsim::Rank{0});
  m_transfers.resize(steps);
  syncsim::PlanStep step;
  for (std::uint32_t s = 0; s < steps; ++s) {
    for (std::uint32_t r = 0; r < n; ++r) {
      plan.step(syncsim::Rank{r}, s, step);
      for (const syncsim::PlanSend& send : step.sends) {
        // The receiver's step tells whether the chunk is reduced on arrival: reduce-scatter steps reduce.
        syncsim::PlanStep receiverStep;
        plan.step(send.dst, send.dst_step, receiverStep);
        m_transfers[s].push_back(RingTransfer{static_cast<int>(r), static_cast<int>(send.dst.value()),
                                              static_cast<int>(send.chunk), receiverStep.reduce_bytes > 0});
      }
    }
  }
}

std::vector<int> RingSchedule::stateAfter(int completedSteps) const {
  const auto n = static_cast<std::size_t>(m_ranks);
  std::vector<int> state(n * n, 1);
  std::vector<int> next;
  const int last = std::clamp(completedSteps, 0, stepCount());
  for (int s = 0; s < last; ++s) {
    next = state;
    for (const RingTransfer& t : transfers(s)) {
      const std::size_t from = static_cast<std::size_t>(t.src) * n + static_cast<std::size_t>(t.chunk);
      const std::size_t to = static_cast<std::size_t>(t.dst) * n + static_cast<std::size_t>(t.chunk);
      next[to] = t.reduces ? next[to] + state[from] : state[from];
    }
    state.swap(next);
  }
  return state;
}
