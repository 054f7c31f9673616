#pragma once
// FlowModel: the network as a flow-level fluid model with max-min fair sharing (docs/architecture.md §4).
//
// Each active flow f on route R_f gets a rate x_f such that, for every directed link l with capacity C_l,
//     sum_{f uses l} x_f <= C_l,
// and every flow is limited by a saturated link on which its rate is the largest (max-min fairness; found by
// progressive filling). A flow of B bytes pushes its bytes at its current rate and completes R_f's latency after
// its last byte left: alone on its links it takes latency + B / bottleneck, the alpha-beta closed form.
//
// Incremental: when a flow starts or finishes, only the flows connected to it through shared links (transitively)
// are re-solved. A flow that shares no link costs O(route length) and one scheduled completion event.
#include <cstdint>
#include <memory>
#include <vector>

#include "syncsim/core/simulator.hpp"
#include "syncsim/core/strong_id.hpp"
#include "syncsim/core/units.hpp"
#include "syncsim/topology/router.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim {

class WorkBudget;  // syncsim/core/run_cost.hpp

class FlowObserver {
 public:
  virtual ~FlowObserver() = default;
  // Called when the flow's last byte arrived at its destination. `token` is the caller's, from start().
  virtual void on_flow_finished(FlowId flow, std::uint64_t token) = 0;
};

struct LinkUsage {
  double bytes_carried = 0;  // all bytes that crossed the link
  SimTime busy_time;         // time with at least one flow pushing bytes on it
};

// One link's usage, for reports that list only the links a piece of work touched.
struct LinkTraffic {
  LinkId link;
  double bytes_carried = 0;
  SimTime busy_time;
};

// Holds links on behalf of work the caller advances in bulk (a symmetric collective step that completes for all
// ranks in one event, docs/architecture.md §20). When a flow is about to start on a claimed link, the model first calls
// on_claim_broken(): the claimant must release all its claims and start real flows for its unfinished work
// (start() with the remaining bytes and, for work already pushed, the remaining latency), so the sharing that
// follows is exact.
class LinkClaimant {
 public:
  virtual ~LinkClaimant() = default;
  virtual void on_claim_broken() = 0;
};

class FlowModel {
 public:
  FlowModel(Simulator& sim, const Topology& topology);
  ~FlowModel();
  FlowModel(const FlowModel&) = delete;
  FlowModel& operator=(const FlowModel&) = delete;

  // Starts a flow now. The route must outlive the flow (Router's cached routes do). bytes >= 0; a zero-byte
  // flow still pays the route latency.
  FlowId start(const Route& route, Bytes bytes, FlowObserver& observer, std::uint64_t token);
  // The same, for a flow resumed mid-way: it completes `latency` after its last byte left instead of the
  // route's latency (0 bytes and a latency: the tail of a transfer whose bytes are all on the wire).
  FlowId start(const Route& route, Bytes bytes, FlowObserver& observer, std::uint64_t token, SimTime latency);
  // Both, for fluid sizes: a chunk of S/n bytes need not be whole (collectives split buffers evenly, and the
  // closed forms they must reproduce are fluid). bytes >= 0.
  FlowId start(const Route& route, double bytes, FlowObserver& observer, std::uint64_t token);
  FlowId start(const Route& route, double bytes, FlowObserver& observer, std::uint64_t token, SimTime latency);

  // Bulk work (see LinkClaimant). A link is idle when no flow uses it and nobody claims it.
  bool idle(LinkId link) const;
  void claim(LinkId link, LinkClaimant& claimant);
  void release(LinkId link);
  // Credits bulk work to the links' usage counters: `bytes` carried on each link of the route, busy for `busy`.
  void record_usage(const Route& route, Bytes bytes, SimTime busy);
  void record_usage(const Route& route, double bytes, SimTime busy);

  // Flows started and not yet finished; a flow in its latency tail counts.
  std::size_t active_flows() const;
  // Fails an invariant (std::logic_error) when a flow is still active. The model runs it by itself whenever its
  // simulation runs out of events (Simulator::watch): a flow without a pending event would never finish.
  void check_finished() const;
  // Current rate of an active flow; 0 once its last byte left (during its latency tail).
  Bandwidth rate(FlowId flow) const;
  // Sum of the current rates on a link (never above its bandwidth; a tested invariant).
  Bandwidth link_load(LinkId link) const;
  // Usage accumulated so far, brought up to now().
  LinkUsage link_usage(LinkId link) const;
  // link_usage() of every link that has carried bytes, sorted by link id: O(links touched x log).
  std::vector<LinkTraffic> traffic() const;

  std::uint64_t flows_started() const;

  // The run-cost budget (syncsim/core/run_cost.hpp) its re-solves count against: its own (kFlowSolveBudget) unless
  // given one shared by several models (the sizes of `syncsim collective`), which must outlive it. Past it, the
  // event that re-solves throws RunCostExceeded.
  void count_work_in(WorkBudget& shared);

  // How long `bytes` take to leave at `rate`: bytes / rate rounded to the nearest picosecond, exactly as the model
  // times a flow alone on its route. Bulk work that must match the per-flow path computes its times with this.
  static SimTime drain_time(Bytes bytes, Bandwidth rate);
  static SimTime drain_time(double bytes, Bandwidth rate);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace syncsim
