#pragma once
// The inside of FlowModel (private to the library): flow and link records and the engine that keeps rates max-min.
//
// Events. Each flow has at most one live event, told apart from stale ones by a generation number in the payload
// (the event queue has no cancel):
//   - a lazy flow (alone on every link of its route) has only its completion, at drain_end + latency. It stays
//     listed on its links after drain_end; whoever next looks at those links drops it (purge_drained);
//   - a flow that shares a link has a drain event at drain_end; the drain frees its bandwidth for the others and
//     schedules the completion, latency later.
// A lone flow thus costs one event and O(route length) work.
//
// Re-solving. A start that finds company, and every drain, marks links dirty. One resolve event per instant (after
// everything else at that instant) collects the flows connected to the dirty links through shared links, brings
// them up to now at their old rates, runs progressive filling on that component only, and reschedules the flows
// whose rate or mode changed. Batching by instant matters for collectives: k flows that start or drain together
// cost one solve, not k. Queries flush pending work first, so they never see a half-updated state.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "syncsim/core/run_cost.hpp"
#include "syncsim/network/flow_model.hpp"
#include "syncsim/network/max_min_solver.hpp"

namespace syncsim {

// The one place a drain time is rounded: FlowModel::drain_time() and the engine must agree to the picosecond.
// A rate so low that the drain leaves the clock (a link of 1 bps, a degradation factor of 1e-300) is an input's
// extreme, reported as SimTimeOverflow naming the transfer.
[[noreturn]] void drain_overflow(double bytes, double rate);
inline SimTime drain_duration(double bytes, double rate) {
  const double seconds = bytes / rate;
  if (!SimTime::fits_seconds(seconds)) drain_overflow(bytes, rate);
  return SimTime::from_seconds(seconds);
}

enum class FlowPhase : std::uint8_t { free, pushing, tail };

struct FlowHop {
  std::uint32_t link;  // the link's entry in the model (FlowModel::Impl::links_), not its id
  std::uint32_t pos;   // the flow's index in that link's list: O(1) removal
};

struct FlowState {
  FlowObserver* observer = nullptr;
  std::uint64_t token = 0;
  SimTime latency;
  SimTime updated;    // `remaining` is exact at this time
  SimTime drain_end;  // when the last byte leaves at `rate`; SimTime::max() until first solved
  double remaining = 0;
  double rate = 0;
  std::uint64_t stamp = 0;  // component search mark
  std::uint32_t generation = 0;
  FlowPhase phase = FlowPhase::free;
  bool lazy = false;  // see the header comment
  // The route's links, copied: the hot loops stay in this record instead of chasing the Route. Its capacity is
  // kept when the slot is reused, so starting a flow allocates nothing in the steady state.
  std::vector<FlowHop> hops;
};

struct LinkEntry {
  std::uint32_t flow;
  std::uint32_t hop;  // which hop of the flow this link is, to fix its pos after a swap-remove
};

struct LinkState {
  double capacity = 0;
  double load = 0;  // sum of the rates of the listed flows
  double bytes_carried = 0;
  SimTime busy;
  SimTime accounted;  // bytes_carried and busy are exact up to here
  std::vector<LinkEntry> flows;
  LinkClaimant* claimant = nullptr;
  std::uint64_t stamp = 0;
  std::uint32_t solver_index = 0;
};

// The audit of every link's load (SYNCSIM_AUDIT): each link carries no more than its capacity, and its recorded
// load is the sum of the rates of the flows listed on it. A free function over the records, so a test can hand it
// a broken state. O(links + flows): run after each re-solve in the builds that compile audits in.
void audit_link_loads(const std::vector<LinkState>& links, const std::vector<FlowState>& flows, SimTime now);

// Every started flow must finish: the failure message when `active` flows are left once the events ran out
// (`sample` is one of them), or nullopt when none is.
std::optional<std::string> unfinished_flows_report(std::size_t active, const FlowState* sample);

struct FlowModel::Impl final : EventHandler, QuiescenceCheck {
  Impl(Simulator& sim, const Topology& topology);
  ~Impl() override;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  FlowId start(const Route& route, double bytes, FlowObserver& observer, std::uint64_t token, SimTime latency);
  void on_event(Simulator& sim, std::uint64_t payload) override;
  // The simulation ran out of events: no flow may be left active (each has its event while it is).
  void on_quiescent(const Simulator& sim) const override;
  void check_finished() const;
  void count_work_in(WorkBudget& shared) { solve_work_ = &shared; }
  // Runs the pending re-solve now, if any (queries call it).
  void flush();

  SimTime now() const { return sim_.now(); }
  // A link's state: a link no flow, claim or usage has touched yet is idle and carried nothing (the const form), and
  // gets its entry when first touched (a frontier topology has hundreds of thousands of links, a collective on a few
  // groups crosses a few of them, and a model is made per simulation).
  const LinkState& link_state(LinkId id) const;
  LinkState& link_state(LinkId id);
  // The index in links_ of link `id`, its entry made now if it had none.
  std::uint32_t entry(LinkId id);
  // Pushing: listed on its links with bytes still to push (a lazily drained flow is listed but done).
  bool pushing(const FlowState& f) const { return f.phase == FlowPhase::pushing && f.drain_end > now(); }

  Simulator& sim_;
  const Topology& topology_;
  // The links touched so far, in the order they were, and their ids; entry_of_ maps a link id to its index (kNoEntry
  // when untouched). Flow hops, the dirty list and the solver's component name links by that index.
  std::vector<LinkState> links_;
  std::vector<LinkId> link_ids_;
  std::vector<std::uint32_t> entry_of_;
  static constexpr std::uint32_t kNoEntry = ~std::uint32_t{0};
  std::vector<FlowState> flows_;
  std::vector<std::uint32_t> free_slots_;
  std::size_t active_ = 0;
  std::uint64_t started_ = 0;
  // Links some claimant holds: none while every collective runs flow by flow, and then a start need not look.
  std::size_t claimed_links_ = 0;

 private:
  void break_claims(const Route& route);
  std::uint32_t allocate_slot();
  void advance_link(LinkState& link, SimTime to);
  void register_on_links(std::uint32_t slot, const Route& route);
  void unregister(std::uint32_t slot, SimTime at);
  void purge_drained(LinkState& link);
  void mark_dirty(std::uint32_t slot);
  void resolve();
  void visit_link(std::uint32_t link);
  void apply_rate(std::uint32_t slot, double rate);
  void schedule(std::uint32_t slot);
  void finish(std::uint32_t slot);
  void next_stamp();

  std::uint64_t stamp_ = 0;
  bool resolve_scheduled_ = false;
  std::vector<std::uint32_t> dirty_links_;
  MaxMinSolver solver_;
  // Scratch, reused by every re-solve so that the steady state allocates nothing.
  std::vector<std::uint32_t> component_flows_;
  std::vector<std::uint32_t> component_links_;
  std::vector<std::uint32_t> solver_hops_;
  // The flow-link pairs the re-solves visit, against the run-cost budget (run_cost.hpp).
  WorkBudget own_solve_work_{kFlowSolveWork, kFlowSolveBudget};
  WorkBudget* solve_work_ = &own_solve_work_;
};

}  // namespace syncsim
