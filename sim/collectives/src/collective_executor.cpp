#include "syncsim/collectives/collective_executor.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <unordered_map>

#include "bulk_pattern.hpp"
#include "deadlock_report.hpp"
#include "plan_routes.hpp"
#include "syncsim/collectives/transfer_cost.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {
// Event payloads: a rank whose reduction finished; a transfer's arrival (bit 62, with its in-flight slot); or
// (bit 63) the end of a bulk step, tagged with the bulk generation so that an event made stale by a broken claim
// is ignored.
constexpr std::uint64_t kBulkEvent = std::uint64_t{1} << 63;
constexpr std::uint64_t kArrivalEvent = std::uint64_t{1} << 62;

struct RankState {
  std::uint32_t step = 0;
  std::uint32_t steps = 0;
  std::uint32_t sends_pending = 0;
  std::uint32_t recvs_needed = 0;
  std::uint32_t recvs_got = 0;
  double reduce_bytes = 0;
  bool reducing = false;
  bool finished = false;
};

struct InFlight {
  Rank src;
  Rank dst;
  std::uint32_t src_step;
  std::uint32_t dst_step;
  SimTime latency;  // paid after the last byte left the sender
  double bytes;     // the send's, for the conservation check
};

// Bytes delivered may differ from bytes sent by the rounding of summing the same doubles in another order.
constexpr double kConservationTolerance = 1e-9;

}  // namespace

struct CollectiveExecutor::Impl final : QuiescenceCheck {
  Impl(CollectiveExecutor& owner, Simulator& s, FlowModel& f, Router& r, const CollectivePlan& p, std::vector<NodeId> g,
       ExecutorOptions o)
      : self(owner), sim(s), flows(f), router(r), plan(p), routes(r, participant_nodes(p, std::move(g))), options(o) {}
  ~Impl() override {
    if (running) sim.unwatch(*this);
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  CollectiveExecutor& self;
  Simulator& sim;
  FlowModel& flows;
  Router& router;
  const CollectivePlan& plan;
  PlanRoutes routes;  // by participant: the ranks' GPUs, then any streams' GPUs and switches, and their routes
  ExecutorOptions options;
  std::function<void()> on_done;

  SimTime started;
  SimTime finished;
  bool running = false;
  std::size_t ranks_done = 0;
  ExecutorStats stats;
  double bytes_delivered = 0;  // to the step that expects them; equals stats.bytes_sent at the end

  std::vector<RankState> ranks;
  std::vector<std::vector<SimTime>> step_starts;                    // with options.record_steps
  std::unordered_map<std::uint64_t, std::uint32_t> early_arrivals;  // (rank << 32 | step) -> count
  std::vector<InFlight> in_flight;
  std::vector<std::uint32_t> free_slots;
  PlanStep scratch;

  bool bulk_mode = false;
  std::uint32_t bulk_step = 0;
  std::uint64_t bulk_generation = 0;
  SimTime bulk_step_start;
  std::map<std::uint32_t, BulkPattern> patterns;
  std::optional<std::uint32_t> claimed;  // the pattern whose links we hold

  // The shared costing (transfer_cost.hpp), with this executor's options and topology.
  SimTime reduction_time(double bytes) const { return syncsim::reduction_time(options.reduction_rate, bytes); }
  // ---- per-flow path ----

  void record_step(std::size_t rank) {
    if (options.record_steps) step_starts[rank].push_back(sim.now() - started);
  }

  void begin_step(Rank rank) {
    RankState& st = ranks[rank.value()];
    record_step(rank.value());  // a step's start, or the rank's end after its last step
    if (st.step >= st.steps) {
      finish_rank(st);
      return;
    }
    plan.step(rank, st.step, scratch);
    st.sends_pending = static_cast<std::uint32_t>(scratch.sends.size());
    st.recvs_needed = scratch.recv_count;
    st.recvs_got = take_early_arrivals(rank, st.step);
    st.reduce_bytes = scratch.reduce_bytes;
    // No copy of the sends: in the per-flow path this executor holds no claims, so starting a flow cannot re-enter
    // it and overwrite `scratch` (other executors' broken claims use their own).
    for (const PlanSend& send : scratch.sends) start_transfer(rank, st.step, send, send.bytes, std::nullopt);
    maybe_complete(rank);
  }

  // `bytes` may be less than the send's when a bulk step is resumed part-way; so may the latency.
  void start_transfer(Rank src, std::uint32_t src_step, const PlanSend& send, double bytes,
                      std::optional<SimTime> latency) {
    const PeerRoute& peer = routes.route(src, send.dst);
    const std::uint32_t slot =
        track(src, src_step, send, latency ? *latency : step_latency(options.cost, peer.route_class, *peer.route));
    ++stats.flows;
    // The flow carries the bytes only; the latency is paid after it by an arrival event, so the sender may send
    // again as soon as its last byte left (NCCL keeps several steps in flight per peer) while the data travels.
    flows.start(*peer.route, wire_bytes(options.cost, peer.route_class, bytes), self, slot, SimTime::zero());
  }

  std::uint32_t track(Rank src, std::uint32_t src_step, const PlanSend& send, SimTime latency) {
    SYNCSIM_INVARIANT(send.dst.value() < ranks.size(), "plan sends to a participant that does not exist");
    std::uint32_t slot;
    if (free_slots.empty()) {
      slot = static_cast<std::uint32_t>(in_flight.size());
      in_flight.push_back({});
    } else {
      slot = free_slots.back();
      free_slots.pop_back();
    }
    in_flight[slot] = InFlight{src, send.dst, src_step, send.dst_step, latency, send.bytes};
    ++stats.transfers;
    stats.bytes_sent += send.bytes;
    return slot;
  }

  std::uint32_t take_early_arrivals(Rank rank, std::uint32_t step) {
    if (early_arrivals.empty()) return 0;
    const auto it = early_arrivals.find((std::uint64_t{rank.value()} << 32) | step);
    if (it == early_arrivals.end()) return 0;
    const std::uint32_t count = it->second;
    early_arrivals.erase(it);
    return count;
  }

  // The last byte left the sender: its send is done; the data arrives one latency later.
  void flow_drained(std::uint64_t token) {
    const InFlight& transfer = in_flight[token];
    const SimTime latency = transfer.latency;
    send_done(transfer.src, transfer.src_step);
    if (latency > SimTime::zero()) {
      sim.schedule_in(latency, self, kArrivalEvent | token);
    } else {
      arrived(token);
    }
  }

  void send_done(Rank src, std::uint32_t src_step) {
    RankState& sender = ranks[src.value()];
    SYNCSIM_INVARIANT(sender.step == src_step && sender.sends_pending > 0, "a send finished outside its sender's step");
    --sender.sends_pending;
    maybe_complete(src);
  }

  void arrived(std::uint64_t token) {
    const InFlight transfer = in_flight[token];
    free_slots.push_back(static_cast<std::uint32_t>(token));
    bytes_delivered += transfer.bytes;
    RankState& receiver = ranks[transfer.dst.value()];
    if (receiver.step == transfer.dst_step && !receiver.finished) {
      ++receiver.recvs_got;
      maybe_complete(transfer.dst);
    } else {
      SYNCSIM_INVARIANT(receiver.step < transfer.dst_step, "a transfer arrived for a step its receiver has left");
      ++early_arrivals[(std::uint64_t{transfer.dst.value()} << 32) | transfer.dst_step];
    }
  }

  void maybe_complete(Rank rank) {
    RankState& st = ranks[rank.value()];
    if (st.finished || st.reducing || st.sends_pending > 0 || st.recvs_got < st.recvs_needed) return;
    SYNCSIM_INVARIANT(st.recvs_got == st.recvs_needed, "a rank received more transfers than its step expects");
    const SimTime reduce = reduction_time(st.reduce_bytes);
    stats.bytes_reduced += st.reduce_bytes;
    if (reduce > SimTime::zero()) {
      st.reducing = true;
      sim.schedule_in(reduce, self, rank.value());
      return;
    }
    ++st.step;
    begin_step(rank);
  }

  void reduction_finished(Rank rank) {
    RankState& st = ranks[rank.value()];
    st.reducing = false;
    ++st.step;
    begin_step(rank);
  }

  void finish_rank(RankState& st) {
    if (st.finished) return;
    st.finished = true;
    if (++ranks_done == ranks.size()) finish();
  }

  void finish() {
    finished = sim.now();
    running = false;
    sim.unwatch(*this);
    check_conservation();
    if (on_done) on_done();
  }

  // Bytes conserved: when the last rank finishes, every transfer has arrived at the step that waited for it, and
  // the bytes delivered are the bytes sent (audits: and the bytes the plan holds).
  void check_conservation() const {
    SYNCSIM_INVARIANT(free_slots.size() == in_flight.size(),
                      "bytes not conserved: a transfer is still in flight when its collective finished (the plan "
                      "sends to a step its receiver never waits in)");
    SYNCSIM_INVARIANT(early_arrivals.empty(),
                      "bytes not conserved: a transfer arrived for a step its receiver never reached");
    SYNCSIM_INVARIANT(std::abs(bytes_delivered - stats.bytes_sent) <= kConservationTolerance * stats.bytes_sent,
                      "bytes not conserved: the bytes delivered differ from the bytes sent");
    if constexpr (kAuditsCompiledIn) {
      std::uint64_t rank_steps = 0;
      for (const RankState& st : ranks) rank_steps += st.steps;
      if (rank_steps <= kMaxDeadlockScan) {
        const double expected = plan_bytes(plan);
        SYNCSIM_AUDIT(std::abs(stats.bytes_sent - expected) <= kConservationTolerance * expected,
                      "bytes not conserved: the collective sent other bytes than its plan holds");
      }
    }
  }

  // The simulation ran out of events: a collective still running waits for something that will never come.
  void on_quiescent(const Simulator&) const override {
    if (!running) return;
    std::vector<RankProgress> progress;
    progress.reserve(ranks.size());
    for (const RankState& st : ranks) {
      progress.push_back(
          {st.step, st.steps, st.sends_pending, st.recvs_needed, st.recvs_got, st.reducing, st.finished});
    }
    invariant_failed(deadlock_report(plan, progress), __FILE__, __LINE__);
  }

  // ---- bulk path ----

  void run_bulk_step() {
    const std::uint32_t steps = ranks.empty() ? 0 : ranks[0].steps;
    if (bulk_step >= steps) {
      release_claims();
      for (std::size_t r = 0; r < ranks.size(); ++r) {
        record_step(r);
        ranks[r].step = steps;
        finish_rank(ranks[r]);
      }
      return;
    }
    const std::optional<std::uint32_t> id = plan.uniform_pattern(bulk_step);
    if (!id) return leave_bulk();
    auto it = patterns.find(*id);
    if (it == patterns.end()) {
      it = patterns.emplace(*id, build_bulk_pattern(plan, router, routes.nodes(), options, bulk_step, scratch)).first;
    }
    BulkPattern& pattern = it->second;
    if (!pattern.usable) return leave_bulk();
    if (claimed != id) {
      release_claims();
      if (!links_idle(pattern, flows)) return leave_bulk();
      claim_links(pattern, flows, self);
      claimed = id;
    }
    bulk_step_start = sim.now();
    // Only a trace asks for every rank's step starts; without one a bulk step costs O(1) whatever the rank count.
    if (options.record_steps) {
      for (std::size_t r = 0; r < ranks.size(); ++r) record_step(r);
    }
    sim.schedule_in(pattern.duration, self, kBulkEvent | ++bulk_generation);
  }

  void bulk_step_finished(std::uint64_t generation) {
    if (!bulk_mode || generation != bulk_generation) return;  // made stale by a broken claim
    BulkPattern& pattern = patterns.at(*claimed);
    ++pattern.unrecorded_steps;
    ++stats.bulk_steps;
    stats.transfers += pattern.transfer_count;
    stats.bytes_sent += pattern.step_bytes;
    bytes_delivered += pattern.step_bytes;
    stats.bytes_reduced += pattern.reduce_bytes * static_cast<double>(ranks.size());
    ++bulk_step;
    run_bulk_step();
  }

  void release_claims() {
    if (!claimed) return;
    release_links(patterns.at(*claimed), flows);
    claimed.reset();
  }

  // Every rank stands at bulk_step with nothing started: continue flow by flow from here.
  void leave_bulk() {
    release_claims();
    bulk_mode = false;
    for (std::uint32_t r = 0; r < ranks.size(); ++r) ranks[r].step = bulk_step;
    for (std::uint32_t r = 0; r < ranks.size(); ++r) begin_step(Rank{r});
  }

  // Another flow wants one of our links mid-step: hand the unfinished part of every transfer of this step to the
  // flow model as a real flow, so that it shares the link exactly as the per-flow path would have.
  void claim_broken() {
    SYNCSIM_INVARIANT(bulk_mode && claimed, "a claim broke that this executor does not hold");
    BulkPattern& pattern = patterns.at(*claimed);
    const SimTime elapsed = sim.now() - bulk_step_start;
    ++bulk_generation;
    bulk_mode = false;
    // Credit what the interrupted step already pushed before the claims go.
    const SimTime pushed_for = std::min(elapsed, pattern.drain_time);
    const double pushed_fraction =
        pattern.drain_time > SimTime::zero()
            ? static_cast<double>(pushed_for.ps()) / static_cast<double>(pattern.drain_time.ps())
            : 1.0;
    record_partial_step(pattern, flows, pushed_fraction, pushed_for);
    release_claims();
    const bool transfers_done = elapsed >= pattern.transfer_time;
    for (std::uint32_t r = 0; r < ranks.size(); ++r) {
      RankState& st = ranks[r];
      st.step = bulk_step;
      plan.step(Rank{r}, bulk_step, scratch);
      st.recvs_needed = scratch.recv_count;
      st.reduce_bytes = scratch.reduce_bytes;
      if (transfers_done) {
        // Transfers done, reduction under way: finish it where the bulk step would have. The transfers count here,
        // as bulk_step_finished would have counted them.
        for (const PlanSend& send : scratch.sends) {
          ++stats.transfers;
          stats.bytes_sent += send.bytes;
          bytes_delivered += send.bytes;
        }
        st.sends_pending = 0;
        st.recvs_got = st.recvs_needed;
        st.reducing = true;
        stats.bytes_reduced += st.reduce_bytes;
        sim.schedule_at(bulk_step_start + pattern.duration, self, r);
      } else {
        st.sends_pending = static_cast<std::uint32_t>(scratch.sends.size());
        st.recvs_got = 0;
      }
    }
    if (transfers_done) return;
    const SimTime latency = pattern.transfer_time - pattern.drain_time;
    for (std::uint32_t r = 0; r < ranks.size(); ++r) {
      plan.step(Rank{r}, bulk_step, scratch);
      // No copy of the sends: this executor's claims are gone, so starting a flow cannot re-enter it (see begin_step).
      for (const PlanSend& send : scratch.sends) {
        if (elapsed < pattern.drain_time) {
          start_transfer(Rank{r}, bulk_step, send, send.bytes * (1.0 - pushed_fraction), latency);
        } else {
          // All bytes are on the wire: the send is done, the data lands when the bulk step said it would.
          --ranks[r].sends_pending;
          const std::uint32_t slot = track(Rank{r}, bulk_step, send, latency);
          sim.schedule_at(bulk_step_start + pattern.transfer_time, self, kArrivalEvent | slot);
        }
      }
    }
  }
};

CollectiveExecutor::CollectiveExecutor(Simulator& sim, FlowModel& flows, Router& router, const CollectivePlan& plan,
                                       std::vector<NodeId> gpus, ExecutorOptions options)
    : impl_(std::make_unique<Impl>(*this, sim, flows, router, plan, std::move(gpus), options)) {}

CollectiveExecutor::~CollectiveExecutor() {
  if (impl_ && impl_->claimed) impl_->release_claims();
}

void CollectiveExecutor::start(std::function<void()> on_done) {
  Impl& m = *impl_;
  SYNCSIM_INVARIANT(!m.running, "a collective started twice");
  m.on_done = std::move(on_done);
  m.started = m.sim.now();
  m.running = true;
  m.sim.watch(m);
  m.ranks.assign(m.plan.participant_count(), RankState{});
  m.step_starts.assign(m.options.record_steps ? m.ranks.size() : 0, {});
  bool same_step_count = true;
  for (std::uint32_t r = 0; r < m.ranks.size(); ++r) {
    m.ranks[r].steps = m.plan.step_count(Rank{r});
    same_step_count = same_step_count && m.ranks[r].steps == m.ranks[0].steps;
  }
  m.bulk_mode = m.options.bulk && same_step_count;
  if (m.bulk_mode) {
    m.bulk_step = 0;
    m.run_bulk_step();
  } else {
    for (std::uint32_t r = 0; r < m.ranks.size(); ++r) m.begin_step(Rank{r});
  }
}

bool CollectiveExecutor::done() const {
  return !impl_->ranks.empty() && impl_->ranks_done == impl_->ranks.size();
}
SimTime CollectiveExecutor::start_time() const {
  return impl_->started;
}
SimTime CollectiveExecutor::finish_time() const {
  return impl_->finished;
}
const ExecutorStats& CollectiveExecutor::stats() const {
  return impl_->stats;
}
const std::vector<std::vector<SimTime>>& CollectiveExecutor::step_starts() const {
  return impl_->step_starts;
}

void CollectiveExecutor::on_event(Simulator&, std::uint64_t payload) {
  if (payload & kBulkEvent) {
    impl_->bulk_step_finished(payload & ~kBulkEvent);
  } else if (payload & kArrivalEvent) {
    impl_->arrived(payload & ~kArrivalEvent);
  } else {
    impl_->reduction_finished(Rank{static_cast<std::uint32_t>(payload)});
  }
}

void CollectiveExecutor::on_flow_finished(FlowId, std::uint64_t token) {
  impl_->flow_drained(token);
}

void CollectiveExecutor::on_claim_broken() {
  impl_->claim_broken();
}

CollectiveTiming time_collective(Router& router, const CollectivePlan& plan, ExecutorOptions options) {
  const Topology& topology = router.topology();
  if (plan.rank_count() > topology.gpu_count()) {
    throw InputError(fmt::format("the collective needs {} ranks but the topology has {} GPUs", plan.rank_count(),
                                 topology.gpu_count()));
  }
  std::vector<NodeId> gpus;
  for (std::size_t r = 0; r < plan.rank_count(); ++r) gpus.push_back(topology.gpu(r));
  Simulator sim;
  FlowModel flows(sim, topology);
  CollectiveExecutor executor(sim, flows, router, plan, std::move(gpus), options);
  executor.start();
  sim.run();  // a deadlock fails inside, naming who waits for whom (on_quiescent)
  SYNCSIM_INVARIANT(executor.done(), "the collective ended with ranks still waiting (deadlock in the plan)");
  return {executor.finish_time() - executor.start_time(), executor.stats(), sim.events_dispatched()};
}

}  // namespace syncsim
