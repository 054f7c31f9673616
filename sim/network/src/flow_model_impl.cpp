#include "flow_model_impl.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/sim_time_overflow.hpp"

namespace syncsim {
namespace {

// Progressive filling adds and subtracts doubles; a link may end this far (relative) above its capacity.
constexpr double capacity_tolerance = 1e-9;
// Drain times are rounded to whole picoseconds, so a flow may have pushed up to half a picosecond's worth of
// bytes too many or too few when it drains. These bound that, with room for summation error on long flows.
constexpr double drain_rounding_seconds = 1e-12;
constexpr double remaining_relative_tolerance = 1e-9;
constexpr double remaining_absolute_tolerance = 1e-6;  // bytes
// An event time computed in seconds as a double carries that double's rounding of the absolute time, 2^-52 of it
// (256 ps at 21 days, near the clock's 106-day limit): two of those beside the picosecond.
constexpr double absolute_time_rounding = 4.5e-16;

double drain_slack_seconds(SimTime at) {
  return drain_rounding_seconds + absolute_time_rounding * at.seconds();
}

// The payload of the per-instant resolve event: a slot number no flow can have (allocate_slot stops short of it).
constexpr std::uint32_t resolve_slot = std::numeric_limits<std::uint32_t>::max();

std::uint64_t pack(std::uint32_t slot, std::uint32_t generation) {
  return (std::uint64_t{generation} << 32) | slot;
}

}  // namespace

void drain_overflow(double bytes, double rate) {
  throw SimTimeOverflow(fmt::format("{} at {} takes {:.3g} s",
                                    format_bytes(Bytes{static_cast<std::int64_t>(std::min(bytes, 9.0e18))}),
                                    format_bandwidth(Bandwidth{rate}), bytes / rate));
}

void audit_link_loads(const std::vector<LinkState>& links, const std::vector<FlowState>& flows, SimTime now) {
  for (const LinkState& link : links) {
    double sum = 0;
    for (const LinkEntry entry : link.flows) {
      const FlowState& f = flows[entry.flow];
      // A lazily drained flow stays listed until purged; it pushes nothing, and the link's load no longer counts it
      // once another flow looked at the link.
      if (f.phase == FlowPhase::pushing && f.drain_end > now) sum += f.rate;
    }
    SYNCSIM_INVARIANT(sum <= link.capacity * (1 + capacity_tolerance),
                      "flow model audit: the flows on a link push more than its capacity");
    SYNCSIM_INVARIANT(link.load <= link.capacity * (1 + capacity_tolerance),
                      "flow model audit: a link's recorded load is over its capacity");
    SYNCSIM_INVARIANT(sum <= link.load * (1 + capacity_tolerance) + capacity_tolerance,
                      "flow model audit: a link's recorded load misses rates of flows listed on it");
  }
}

std::optional<std::string> unfinished_flows_report(std::size_t active, const FlowState* sample) {
  if (active == 0) return std::nullopt;
  std::string report = fmt::format(
      "flow model: {} flow(s) still active when the simulation ran out of events (each started flow must finish)",
      active);
  if (sample != nullptr) {
    report += fmt::format("; one has {} bytes left at rate {} B/s, {}", sample->remaining, sample->rate,
                          sample->phase == FlowPhase::tail ? "in its latency tail" : "pushing");
  }
  return report;
}

FlowModel::Impl::Impl(Simulator& sim, const Topology& topology)
    : sim_(sim), topology_(topology), entry_of_(topology.link_count(), kNoEntry) {
  sim_.watch(*this);
}

FlowModel::Impl::~Impl() {
  sim_.unwatch(*this);
}

void FlowModel::Impl::on_quiescent(const Simulator&) const {
  check_finished();
}

void FlowModel::Impl::check_finished() const {
  const FlowState* sample = nullptr;
  for (const FlowState& f : flows_) {
    if (f.phase != FlowPhase::free) {
      sample = &f;
      break;
    }
  }
  if (const auto report = unfinished_flows_report(active_, sample)) invariant_failed(*report, __FILE__, __LINE__);
}

const LinkState& FlowModel::Impl::link_state(LinkId id) const {
  SYNCSIM_INVARIANT(id.value() < entry_of_.size(), "flow model: a link the topology lacks");
  static const LinkState untouched;
  const std::uint32_t index = entry_of_[id.value()];
  return index == kNoEntry ? untouched : links_[index];
}

LinkState& FlowModel::Impl::link_state(LinkId id) {
  return links_[entry(id)];
}

std::uint32_t FlowModel::Impl::entry(LinkId id) {
  SYNCSIM_INVARIANT(id.value() < entry_of_.size(), "flow model: a link the topology lacks");
  std::uint32_t& index = entry_of_[id.value()];
  if (index == kNoEntry) {
    LinkState& link = links_.emplace_back();
    link.capacity = topology_.link(id).bandwidth.bytes_per_second;
    SYNCSIM_INVARIANT(link.capacity > 0, "flow model: a link has no bandwidth");
    link_ids_.push_back(id);
    index = static_cast<std::uint32_t>(links_.size() - 1);
  }
  return index;
}

FlowId FlowModel::Impl::start(const Route& route, double bytes, FlowObserver& observer, std::uint64_t token,
                              SimTime latency) {
  SYNCSIM_INVARIANT(bytes >= 0 && std::isfinite(bytes), "flow model: a flow of negative or infinite size");
  SYNCSIM_INVARIANT(latency >= SimTime::zero(), "flow model: a flow with negative latency");
  ++started_;
  const bool pushes = bytes > 0 && !route.links.empty();
  // A flow that pushes nothing takes no bandwidth, so it leaves claims alone. Claimants run before the slot is
  // taken: they start flows of their own, which may grow flows_.
  if (pushes) break_claims(route);

  const std::uint32_t slot = allocate_slot();
  FlowState& f = flows_[slot];
  f.observer = &observer;
  f.token = token;
  f.latency = latency;
  f.updated = now();
  f.remaining = bytes;
  f.rate = 0;
  f.lazy = false;
  f.hops.clear();
  ++active_;
  if (!pushes) {
    f.phase = FlowPhase::tail;
    f.drain_end = now();
    schedule(slot);
    return FlowId{slot};
  }
  f.phase = FlowPhase::pushing;
  f.drain_end = SimTime::max();
  register_on_links(slot, route);

  // The common case: alone on every link, so the slowest link is the rate and no other flow is affected.
  bool alone = true;
  double rate = std::numeric_limits<double>::infinity();
  for (const FlowHop hop : f.hops) {
    const LinkState& link = links_[hop.link];
    alone = alone && link.flows.size() == 1;
    rate = std::min(rate, link.capacity);
  }
  if (alone) {
    for (const FlowHop hop : f.hops) links_[hop.link].load = rate;
    f.rate = rate;
    f.lazy = true;
    f.drain_end = now() + drain_duration(f.remaining, rate);
    schedule(slot);
  } else {
    mark_dirty(slot);
  }
  return FlowId{slot};
}

void FlowModel::Impl::break_claims(const Route& route) {
  // One claimant at a time, looked up afresh: a claimant's new flows may break other claims on this route
  // (reentrant start()), and each claimant must be told once.
  while (claimed_links_ > 0) {
    // By id, not by reference: the claimant's new flows may touch links that move the states.
    const auto claimed = std::find_if(route.links.begin(), route.links.end(),
                                      [&](LinkId id) { return std::as_const(*this).link_state(id).claimant; });
    if (claimed == route.links.end()) return;
    LinkClaimant* claimant = link_state(*claimed).claimant;
    claimant->on_claim_broken();
    SYNCSIM_INVARIANT(link_state(*claimed).claimant != claimant,
                      "flow model: a claimant kept its claim after on_claim_broken");
  }
}

std::uint32_t FlowModel::Impl::allocate_slot() {
  if (!free_slots_.empty()) {
    const std::uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    return slot;
  }
  SYNCSIM_INVARIANT(flows_.size() < resolve_slot, "flow model: too many concurrent flows");
  flows_.emplace_back();
  return static_cast<std::uint32_t>(flows_.size() - 1);
}

void FlowModel::Impl::advance_link(LinkState& link, SimTime to) {
  if (to <= link.accounted) return;
  if (!link.flows.empty()) {
    const SimTime elapsed = to - link.accounted;
    link.busy += elapsed;
    link.bytes_carried += link.load * elapsed.seconds();
  }
  link.accounted = to;
}

void FlowModel::Impl::register_on_links(std::uint32_t slot, const Route& route) {
  solve_work_->spend(route.links.size());  // and as much again to leave them
  for (std::uint32_t hop = 0; hop < route.links.size(); ++hop) {
    const std::uint32_t index = entry(route.links[hop]);
    LinkState& link = links_[index];
    purge_drained(link);
    advance_link(link, now());  // usage so far, before this flow counts
    flows_[slot].hops.push_back({index, static_cast<std::uint32_t>(link.flows.size())});
    link.flows.push_back({slot, hop});
  }
}

void FlowModel::Impl::unregister(std::uint32_t slot, SimTime at) {
  FlowState& f = flows_[slot];
  // What the links' rate integrals missed (or counted twice) because drain_end was rounded; crediting it keeps
  // each link's bytes_carried equal to the bytes of the flows that crossed it.
  const double residual = f.remaining - f.rate * (at - f.updated).seconds();
  SYNCSIM_INVARIANT(std::abs(residual) <= f.rate * drain_slack_seconds(at) +
                                              remaining_relative_tolerance * f.remaining + remaining_absolute_tolerance,
                    "flow model: a flow left its links with bytes unsent or overdrawn");
  for (const FlowHop hop : f.hops) {
    LinkState& link = links_[hop.link];
    advance_link(link, at);
    link.bytes_carried += residual;
    const LinkEntry moved = link.flows.back();
    link.flows[hop.pos] = moved;
    flows_[moved.flow].hops[moved.hop].pos = hop.pos;
    link.flows.pop_back();
    link.load = link.flows.empty() ? 0 : link.load - f.rate;
  }
  f.remaining = 0;
  f.rate = 0;
  f.updated = at;
}

void FlowModel::Impl::purge_drained(LinkState& link) {
  // A lazy flow is alone on its links, so only a link with one flow can hold it, and dropping it changes no other
  // flow's rate. A link with company holds no drained lazy flow: the first flow to join one purged it, and the rates
  // solved at the end of that instant made it eager; so a crowded link (a spine's) is not read flow by flow here.
  if (link.flows.size() != 1) return;
  const std::uint32_t slot = link.flows.front().flow;
  FlowState& f = flows_[slot];
  if (f.lazy && f.drain_end <= now()) {
    unregister(slot, f.drain_end);
    f.phase = FlowPhase::tail;  // its completion event, already scheduled, stays valid
  }
}

void FlowModel::Impl::mark_dirty(std::uint32_t slot) {
  for (const FlowHop hop : flows_[slot].hops) dirty_links_.push_back(hop.link);
  if (!resolve_scheduled_) {
    resolve_scheduled_ = true;
    sim_.schedule_at(now(), *this, pack(resolve_slot, 0), EventPriority::last);
  }
}

void FlowModel::Impl::flush() {
  if (!dirty_links_.empty()) resolve();
}

void FlowModel::Impl::next_stamp() {
  if (++stamp_ == std::numeric_limits<std::uint64_t>::max()) {
    for (FlowState& f : flows_) f.stamp = 0;
    for (LinkState& link : links_) link.stamp = 0;
    stamp_ = 1;
  }
}

void FlowModel::Impl::visit_link(std::uint32_t link) {
  if (links_[link].stamp == stamp_) return;
  links_[link].stamp = stamp_;
  component_links_.push_back(link);
}

void FlowModel::Impl::resolve() {
  const SimTime t = now();
  next_stamp();
  component_flows_.clear();
  component_links_.clear();
  for (const std::uint32_t link : dirty_links_) visit_link(link);
  dirty_links_.clear();
  // Breadth-first over link -> flows -> links; component_links_ doubles as the queue.
  for (std::size_t next = 0; next < component_links_.size(); ++next) {
    LinkState& link = links_[component_links_[next]];
    purge_drained(link);
    for (const LinkEntry entry : link.flows) {
      FlowState& f = flows_[entry.flow];
      if (f.stamp == stamp_) continue;
      f.stamp = stamp_;
      component_flows_.push_back(entry.flow);
      for (const FlowHop hop : f.hops) visit_link(hop.link);
    }
  }

  std::uint64_t visits = component_links_.size();
  for (const std::uint32_t slot : component_flows_) visits += flows_[slot].hops.size();
  solve_work_->spend(visits);

  // Usage and remaining bytes up to now at the old rates, before any rate changes.
  for (const std::uint32_t l : component_links_) advance_link(links_[l], t);
  for (const std::uint32_t slot : component_flows_) {
    FlowState& f = flows_[slot];
    f.remaining -= f.rate * (t - f.updated).seconds();
    SYNCSIM_INVARIANT(f.remaining >= -(f.rate * drain_slack_seconds(t) + remaining_absolute_tolerance),
                      "flow model: a flow's remaining bytes went negative");
    f.remaining = std::max(0.0, f.remaining);
    f.updated = t;
  }

  if (component_flows_.size() == 1) {
    double rate = std::numeric_limits<double>::infinity();
    for (const FlowHop hop : flows_[component_flows_[0]].hops) rate = std::min(rate, links_[hop.link].capacity);
    apply_rate(component_flows_[0], rate);
  } else if (!component_flows_.empty()) {
    solver_.clear();
    for (const std::uint32_t l : component_links_) links_[l].solver_index = solver_.add_link(links_[l].capacity);
    for (const std::uint32_t slot : component_flows_) {
      solver_hops_.clear();
      for (const FlowHop hop : flows_[slot].hops) solver_hops_.push_back(links_[hop.link].solver_index);
      solver_.add_flow(solver_hops_);
    }
    solver_.solve();
    for (std::uint32_t i = 0; i < component_flows_.size(); ++i) apply_rate(component_flows_[i], solver_.rate(i));
  }

  // Recomputed rather than patched, so that additions and subtractions do not drift.
  for (const std::uint32_t l : component_links_) {
    LinkState& link = links_[l];
    link.load = 0;
    for (const LinkEntry entry : link.flows) link.load += flows_[entry.flow].rate;
    SYNCSIM_INVARIANT(link.load <= link.capacity * (1 + capacity_tolerance), "flow model: a link is over capacity");
  }
  // The check above sees the re-solved component only; the audit sees every link.
  if constexpr (kAuditsCompiledIn) audit_link_loads(links_, flows_, t);
}

void FlowModel::Impl::apply_rate(std::uint32_t slot, double rate) {
  FlowState& f = flows_[slot];
  bool alone = true;
  for (const FlowHop hop : f.hops) alone = alone && links_[hop.link].flows.size() == 1;
  if (rate == f.rate && alone == f.lazy) return;  // same drain_end, same pending event
  if (rate != f.rate) {
    f.rate = rate;
    f.drain_end = now() + drain_duration(f.remaining, rate);
  }
  // A lone flow that meets company needs a drain event even if its rate holds: its drain changes the others'.
  f.lazy = alone;
  ++f.generation;  // the pending event is now stale
  schedule(slot);
}

void FlowModel::Impl::schedule(std::uint32_t slot) {
  const FlowState& f = flows_[slot];
  const std::uint64_t payload = pack(slot, f.generation);
  if (f.phase == FlowPhase::tail) {
    sim_.schedule_at(now() + f.latency, *this, payload);
  } else if (f.lazy) {
    sim_.schedule_at(f.drain_end + f.latency, *this, payload);
  } else {
    sim_.schedule_at(f.drain_end, *this, payload, EventPriority::early);
  }
}

void FlowModel::Impl::on_event(Simulator&, std::uint64_t payload) {
  const auto slot = static_cast<std::uint32_t>(payload);
  if (slot == resolve_slot) {
    resolve_scheduled_ = false;
    flush();  // a query may have flushed already
    return;
  }
  const auto generation = static_cast<std::uint32_t>(payload >> 32);
  SYNCSIM_INVARIANT(slot < flows_.size(), "flow model: an event for an unknown flow");
  FlowState& f = flows_[slot];
  if (f.phase == FlowPhase::free || f.generation != generation) return;  // superseded by a reschedule
  if (f.phase == FlowPhase::pushing && f.lazy) {
    unregister(slot, f.drain_end);
    finish(slot);
  } else if (f.phase == FlowPhase::pushing) {
    // Drain: the last byte left. Free the bandwidth for the others and wait out the latency.
    mark_dirty(slot);
    unregister(slot, now());
    f.phase = FlowPhase::tail;
    schedule(slot);
  } else {
    finish(slot);
  }
}

void FlowModel::Impl::finish(std::uint32_t slot) {
  FlowState& f = flows_[slot];
  FlowObserver* observer = f.observer;
  const std::uint64_t token = f.token;
  f.phase = FlowPhase::free;
  ++f.generation;
  free_slots_.push_back(slot);
  --active_;
  // Last: the observer typically starts the next flow, which may take this very slot.
  observer->on_flow_finished(FlowId{slot}, token);
}

}  // namespace syncsim
