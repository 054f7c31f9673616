#pragma once
// The run-cost budget: how much work simulating one collective or one engine run may take.
//
// The clock bounds how long a run simulates (check_run_length), not how much work simulating it takes. Some valid
// inputs ask for hours: `syncsim collective -t ring:n=65536 --algo pat --op all_gather` sends messages 2^d hops
// around a 65,536-GPU ring, and routing them for every rank, then re-solving their max-min rates at every step,
// is about 2^32 link visits per step. The two places whose work grows with route length times flow count count it
// as they go, against a budget each, and throw RunCostExceeded past it:
//
//   Router        the route searches' link visits, per router (a collective command's; a scenario run's, larger);
//   FlowModel     the flow-link pairs its flows register on and its re-solves visit, per flow model (a collective
//                 in a scenario, a parameter-server run), or shared by the sizes of `syncsim collective`.
//   parameter-server run   its messages, counted before it runs: every push and pull of a shard is a flow of its
//                 own (routed, started, finished, its rates re-solved) with a handful of events, and a run of
//                 256 workers, 64 servers and 200 iterations spends its minutes there, not in flow-link visits
//                 (a few per flow on a switch); sim/run/src/ps_run.cpp.
//   the engines that simulate every iteration of every rank (sync and local_sgd over AllReduce, sharded data
//                 parallelism): each iteration of each rank steps through the model's layers and gradient buckets,
//                 so iterations x workers x (layers + buckets), counted before they run; sim/run/src/run_scenario.cpp.
//                 (The layout and recommendation engines simulate one iteration whatever the count.)
//
// Work is counted, not timed: an input stops at the same point on any machine. The budgets are about 20 times the
// most the examples and tests use (6.4 M route-search visits for a 4,096-GPU all_gather over every algorithm,
// under 2 M flow-link visits per collective), and stop what would run for minutes or hours: the PAT AllGather above
// after 4 s, a 1,024-rank halving-doubling AllGather on a ring (44 M visits), a parameter-server run of 256 workers,
// 64 servers and 200 iterations (after about a minute on a loaded 2-core machine: that engine's events cost more
// than its flow-link visits, which is all the budget counts). A caller that knows the input behind it (the
// collective runner: the algorithm, operation, size and ranks; run_scenario: the iterations) rethrows it with that
// context, keeping the limit in the message.
#include <cstdint>
#include <string>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

inline constexpr std::uint64_t kRouteSearchBudget = std::uint64_t{1} << 27;
// A scenario run's router serves every collective of the run: a layout's tensor, pipeline and data-parallel group
// sets, each (up to kMaxFootprintRanks ranks a group) routed member to member to find which groups share links. The
// 405B frontier plan's candidates at 16,384 GPUs (256 data-parallel groups of 64: a million member pairs) passed the
// collective's 2^27 and stopped the plan; 8 times it carries the plan to 32,768 GPUs (docs/performance.md).
inline constexpr std::uint64_t kScenarioRouteSearchBudget = kRouteSearchBudget << 3;
inline constexpr std::uint64_t kFlowSolveBudget = std::uint64_t{1} << 25;
// About 3 us of CPU a message on a loaded 2-core machine: at most a few minutes. Runs of minutes stay within it on
// purpose (the GUI's cancel test runs async-staleness for 100,000 iterations, 3.8e7 messages); hours do not.
inline constexpr std::uint64_t kServerMessageBudget = std::uint64_t{1} << 26;
// 0.25 us (resnet50: 177 steps a rank-iteration, 40 us) to 1 us (llama-7b: 16 x 600 steps, 0.6 ms) of CPU a step
// on a loaded 2-core machine: 10 to 35 minutes at most. Runs of minutes stay within it on purpose (the GUI's cancel
// tests run resnet50 on 8 GPUs for 10^6 iterations, 1.4e9 steps); the hour that the memory budget allowed does not.
inline constexpr std::uint64_t kRankStepBudget = std::uint64_t{1} << 31;
// What each counts, as the messages name it.
inline constexpr const char* kRouteSearchWork = "route-search link visits";
inline constexpr const char* kFlowSolveWork = "flow-link visits (flows started and rates re-solved)";
inline constexpr const char* kServerMessageWork = "parameter-server messages (pushes and pulls of a shard)";
inline constexpr const char* kRankStepWork = "rank steps (each worker's layers and buckets, every iteration)";

class RunCostExceeded : public InputError {
 public:
  // "simulating it passes the run-cost budget of 1073741824 route-search link visits"
  RunCostExceeded(const std::string& work, std::uint64_t budget);
  // With what stays within it, when it is not the collectives' "fewer ranks, shorter routes, another algorithm".
  RunCostExceeded(const std::string& work, std::uint64_t budget, const std::string& within);
  RunCostExceeded(const std::string& context, const RunCostExceeded& cause);
};

// Units of `work` spent against a budget; spend() throws RunCostExceeded when the total passes it.
class WorkBudget {
 public:
  WorkBudget(const char* work, std::uint64_t budget) : work_(work), budget_(budget) {}
  void spend(std::uint64_t units) {
    spent_ += units;
    if (spent_ > budget_) throw RunCostExceeded(work_, budget_);
  }
  std::uint64_t spent() const { return spent_; }
  // Starts the budget again: for work that is counted per run on an object that outlives the run (a kept router).
  void renew() { spent_ = 0; }

 private:
  const char* work_;
  std::uint64_t budget_;
  std::uint64_t spent_ = 0;
};

}  // namespace syncsim
