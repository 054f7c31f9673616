#include "syncsim/training/collective_replay_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

// Where each rank is: its next op (index into its step), the step, and when it reaches that op's collective.
struct ReplayCursor {
  std::size_t op = 0;
  std::int64_t step = 0;
  SimTime ready;   // its last collective's end
  SimTime arrive;  // ready + the next op's gap
};

void check_calls(const CollectiveReplaySetup& setup) {
  std::vector<std::vector<int>> holders(setup.calls.size());
  for (std::size_t r = 0; r < setup.rank_ops.size(); ++r) {
    for (const CollectiveReplaySetup::Op& op : setup.rank_ops[r]) {
      if (op.call < 0 || static_cast<std::size_t>(op.call) >= setup.calls.size()) {
        throw InputError(fmt::format("rank {} joins call {}, which does not exist", r, op.call));
      }
      holders[static_cast<std::size_t>(op.call)].push_back(static_cast<int>(r));
    }
  }
  for (std::size_t c = 0; c < setup.calls.size(); ++c) {
    std::vector<int> ranks = setup.calls[c].ranks;
    std::sort(ranks.begin(), ranks.end());
    if (holders[c] != ranks) {
      throw InputError(fmt::format("call {}'s ranks do not each join it once in their step", c));
    }
  }
}

}  // namespace

CollectiveReplayResult run_collective_replay(const CollectiveReplaySetup& setup) {
  check_calls(setup);
  const std::size_t ranks = setup.rank_ops.size();
  CollectiveReplayResult result;
  result.compute.assign(ranks, SimTime::zero());
  result.communication.assign(ranks, SimTime::zero());
  result.wait.assign(ranks, SimTime::zero());
  std::vector<SimTime> step_end(static_cast<std::size_t>(setup.steps), SimTime::zero());
  std::vector<ReplayCursor> at(ranks);
  std::vector<std::size_t> arrived(setup.calls.size(), 0);
  std::deque<int> ready_calls;
  std::size_t active = 0;
  // Rank r reaches its next op: computes its gap, then waits at the collective.
  const auto reach = [&](std::size_t r) {
    const CollectiveReplaySetup::Op& op = setup.rank_ops[r][at[r].op];
    at[r].arrive = at[r].ready + op.gap;
    result.compute[r] += op.gap;
    const auto call = static_cast<std::size_t>(op.call);
    if (++arrived[call] == setup.calls[call].ranks.size()) ready_calls.push_back(op.call);
  };
  for (std::size_t r = 0; r < ranks; ++r) {
    if (setup.rank_ops[r].empty() || setup.steps < 1) continue;
    ++active;
    reach(r);
  }
  while (!ready_calls.empty()) {
    const auto call = static_cast<std::size_t>(ready_calls.front());
    ready_calls.pop_front();
    arrived[call] = 0;
    const CollectiveReplaySetup::Call& c = setup.calls[call];
    SimTime start = SimTime::zero();
    for (const int r : c.ranks) start = std::max(start, at[static_cast<std::size_t>(r)].arrive);
    const SimTime end = start + c.time;
    for (const int member : c.ranks) {
      const auto r = static_cast<std::size_t>(member);
      ReplayCursor& cursor = at[r];
      result.wait[r] += start - cursor.arrive;
      result.communication[r] += c.time;
      cursor.ready = end;
      if (++cursor.op == setup.rank_ops[r].size()) {
        SimTime& done = step_end[static_cast<std::size_t>(cursor.step)];
        done = std::max(done, end);
        cursor.op = 0;
        if (++cursor.step == setup.steps) {
          --active;
          continue;
        }
      }
      reach(r);
    }
  }
  if (active > 0) {
    for (std::size_t r = 0; r < ranks; ++r) {
      if (at[r].step < setup.steps && !setup.rank_ops[r].empty()) {
        throw InputError(fmt::format(
            "the ranks' orders of collectives deadlock: rank {} waits in step {} at its call {} for ranks that join "
            "another collective first",
            r, at[r].step + 1, at[r].op));
      }
    }
  }
  SimTime previous = SimTime::zero();
  for (const SimTime end : step_end) {
    result.iteration_times.push_back(end - previous);
    previous = end;
  }
  result.total = previous;
  return result;
}

}  // namespace syncsim
