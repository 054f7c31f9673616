// FlowModel's public face: forwards to the engine (flow_model_impl.cpp) and answers queries.
//
// Queries that read rates are const but may run a re-solve that is pending for this instant (Impl::flush); that
// changes no observable state other than making the answer current.
#include "syncsim/network/flow_model.hpp"

#include <algorithm>
#include <utility>

#include "flow_model_impl.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim {

FlowModel::FlowModel(Simulator& sim, const Topology& topology) : impl_(std::make_unique<Impl>(sim, topology)) {}
FlowModel::~FlowModel() = default;

FlowId FlowModel::start(const Route& route, Bytes bytes, FlowObserver& observer, std::uint64_t token) {
  return impl_->start(route, static_cast<double>(bytes.value), observer, token, route.latency);
}

FlowId FlowModel::start(const Route& route, Bytes bytes, FlowObserver& observer, std::uint64_t token, SimTime latency) {
  return impl_->start(route, static_cast<double>(bytes.value), observer, token, latency);
}

FlowId FlowModel::start(const Route& route, double bytes, FlowObserver& observer, std::uint64_t token) {
  return impl_->start(route, bytes, observer, token, route.latency);
}

FlowId FlowModel::start(const Route& route, double bytes, FlowObserver& observer, std::uint64_t token,
                        SimTime latency) {
  return impl_->start(route, bytes, observer, token, latency);
}

bool FlowModel::idle(LinkId link) const {
  const LinkState& state = std::as_const(*impl_).link_state(link);
  if (state.claimant != nullptr) return false;
  return std::none_of(state.flows.begin(), state.flows.end(),
                      [&](LinkEntry e) { return impl_->pushing(impl_->flows_[e.flow]); });
}

void FlowModel::claim(LinkId link, LinkClaimant& claimant) {
  SYNCSIM_INVARIANT(idle(link), "flow model: claiming a link that is not idle");
  impl_->link_state(link).claimant = &claimant;
  ++impl_->claimed_links_;
}

void FlowModel::release(LinkId link) {
  LinkClaimant*& claimant = impl_->link_state(link).claimant;
  if (claimant != nullptr) --impl_->claimed_links_;
  claimant = nullptr;
}

void FlowModel::record_usage(const Route& route, Bytes bytes, SimTime busy) {
  record_usage(route, static_cast<double>(bytes.value), busy);
}

void FlowModel::record_usage(const Route& route, double bytes, SimTime busy) {
  SYNCSIM_INVARIANT(bytes >= 0 && busy >= SimTime::zero(), "flow model: negative usage recorded");
  for (const LinkId id : route.links) {
    LinkState& link = impl_->link_state(id);
    link.bytes_carried += bytes;
    link.busy += busy;
  }
}

std::size_t FlowModel::active_flows() const {
  return impl_->active_;
}

void FlowModel::count_work_in(WorkBudget& shared) {
  impl_->count_work_in(shared);
}

void FlowModel::check_finished() const {
  impl_->check_finished();
}

Bandwidth FlowModel::rate(FlowId flow) const {
  SYNCSIM_INVARIANT(flow.value() < impl_->flows_.size() && impl_->flows_[flow.value()].phase != FlowPhase::free,
                    "flow model: rate() of a flow that is not active");
  impl_->flush();
  const FlowState& f = impl_->flows_[flow.value()];
  return {impl_->pushing(f) ? f.rate : 0};
}

Bandwidth FlowModel::link_load(LinkId link) const {
  impl_->flush();
  const LinkState& state = std::as_const(*impl_).link_state(link);
  // A lone flow may still be listed after it drained (lazily); it pushes nothing.
  if (state.flows.size() == 1 && !impl_->pushing(impl_->flows_[state.flows[0].flow])) return {0};
  return {state.load};
}

LinkUsage FlowModel::link_usage(LinkId link) const {
  // Needs no flush: usage up to now follows from the rates that held until now.
  const LinkState& state = std::as_const(*impl_).link_state(link);
  LinkUsage usage{state.bytes_carried, state.busy};
  if (state.flows.empty()) return usage;
  SimTime end = impl_->now();
  if (state.flows.size() == 1) {
    // Possibly a lazily drained flow: usage stops at its drain_end, plus the rounding residual that its removal
    // will credit.
    const FlowState& f = impl_->flows_[state.flows[0].flow];
    if (f.lazy && f.drain_end <= end) {
      end = std::max(f.drain_end, state.accounted);
      usage.bytes_carried += f.remaining - f.rate * (f.drain_end - f.updated).seconds();
    }
  }
  if (end > state.accounted) {
    usage.busy_time += end - state.accounted;
    usage.bytes_carried += state.load * (end - state.accounted).seconds();
  }
  return usage;
}

std::vector<LinkTraffic> FlowModel::traffic() const {
  std::vector<LinkTraffic> out;
  for (const LinkId id : impl_->link_ids_) {  // the links touched: no other carried anything
    const LinkUsage usage = link_usage(id);
    if (usage.bytes_carried > 0) out.push_back({id, usage.bytes_carried, usage.busy_time});
  }
  std::sort(out.begin(), out.end(), [](const LinkTraffic& a, const LinkTraffic& b) { return a.link < b.link; });
  return out;
}

std::uint64_t FlowModel::flows_started() const {
  return impl_->started_;
}

SimTime FlowModel::drain_time(Bytes bytes, Bandwidth rate) {
  return drain_duration(static_cast<double>(bytes.value), rate.bytes_per_second);
}

SimTime FlowModel::drain_time(double bytes, Bandwidth rate) {
  return drain_duration(bytes, rate.bytes_per_second);
}

}  // namespace syncsim
