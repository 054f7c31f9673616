#include "pipeline_lockstep.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "channel_classes.hpp"
#include "fluid_snapshot.hpp"
#include "pipeline_graph.hpp"
#include "syncsim/collectives/transfer_cost.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim::collectives_detail {

namespace {

// A sum of byte counts whatever the order of its terms: in fixed point, 2^-48 byte, 128 bits (totals to 2^79 bytes). A
// channel timed for its class adds its participants' and peers' bytes in another order than the channel it stands for
// would, and the totals must still agree to the bit (--no-symmetry gives the same results).
class ExactBytes {
 public:
  void add(double bytes) { units_ += static_cast<Units>(std::nearbyint(std::ldexp(bytes, kFractionBits))); }
  void add(const ExactBytes& other) { units_ += other.units_; }
  double value() const { return std::ldexp(static_cast<double>(units_), -kFractionBits); }

 private:
  __extension__ typedef __int128 Units;
  static constexpr int kFractionBits = 48;
  Units units_ = 0;
};

// A channel's totals over a sweep.
struct ChannelTotals {
  ExecutorStats counts;  // transfers and steps; its bytes below
  ExactBytes sent;
  ExactBytes reduced;
};

SimTime drain_of(const Peer& peer, double wire) {
  if (peer.measured_wire > 0 && wire == peer.measured_wire) return peer.measured_drain;
  if (peer.measured_wire > 0 && peer.measured_drain > SimTime::zero()) {
    return FlowModel::drain_time(wire, Bandwidth{peer.measured_wire / peer.measured_drain.seconds()});
  }
  return FlowModel::drain_time(wire, peer.route->bottleneck);
}

// What one pass of the recurrence leaves besides the finish: the step each participant is in at `middle` (the last
// one with sends started by then, else its first with sends) and when it started; the transfers' totals.
struct Sweep {
  SimTime finish;
  std::optional<SimTime> middle;
  std::vector<std::uint32_t> middle_step;  // kNone: the participant never sends
  std::vector<SimTime> middle_start;
  ExecutorStats stats;  // every channel's, a channel of a class counting its timed channel's
};

// The inputs of one participant's steps that its senders have delivered so far: the latest arrival and the count.
struct Inputs {
  std::vector<SimTime> latest;
  std::vector<std::uint32_t> count;
};

// One pass of the recurrence over every participant, in the graph's order. false when a step's receives do not add
// up to what the plan says.
bool run_sweep(Graph& graph, const ExecutorOptions& options, Sweep& out) {
  const std::size_t n = graph.steps.size();
  std::vector<Inputs> inputs(n);
  PlanStep scratch;
  out.finish = SimTime::zero();
  std::vector<ChannelTotals> channel_totals(graph.timed_as.size());
  if (out.middle) {
    out.middle_step.assign(n, kNone);
    out.middle_start.assign(n, SimTime::zero());
  }
  for (Peer& peer : graph.peers) peer.wire_sent = 0;
  for (const std::uint32_t p : graph.order) {
    ChannelTotals& totals = channel_totals[graph.channel_of[p]];
    Inputs mine = std::move(inputs[p]);
    const std::uint32_t steps = graph.steps[p];
    SimTime x;
    for (std::uint32_t s = 0; s < steps; ++s) {
      graph.plan_of[p]->step(Rank{graph.local[p]}, s, scratch);
      const std::uint32_t received = mine.count.empty() ? 0 : mine.count[s];
      if (received != scratch.recv_count) return false;
      SimTime done = x;
      if (received > 0) done = std::max(done, mine.latest[s]);
      for (const PlanSend& send : scratch.sends) {
        Peer* const known = find_peer(graph, p, p - graph.local[p] + send.dst.value());
        if (known == nullptr) return false;
        Peer& peer = *known;
        const double wire = wire_bytes(options.cost, peer.route_class, send.bytes);
        const SimTime drained = x + drain_of(peer, wire);
        done = std::max(done, drained);
        peer.wire_sent += wire;
        Inputs& theirs = inputs[peer.dst];
        if (send.dst_step >= graph.steps[peer.dst]) return false;
        if (theirs.count.empty()) {
          theirs.latest.assign(graph.steps[peer.dst], SimTime::zero());
          theirs.count.assign(graph.steps[peer.dst], 0);
        }
        theirs.latest[send.dst_step] = std::max(theirs.latest[send.dst_step], drained + peer.latency);
        ++theirs.count[send.dst_step];
        ++totals.counts.transfers;
        totals.sent.add(send.bytes);
      }
      if (out.middle && !scratch.sends.empty() && (out.middle_step[p] == kNone || x <= *out.middle)) {
        out.middle_step[p] = s;
        out.middle_start[p] = x;
      }
      totals.reduced.add(scratch.reduce_bytes);
      x = done + reduction_time(options.reduction_rate, scratch.reduce_bytes);
    }
    totals.counts.bulk_steps += steps;
    out.finish = std::max(out.finish, x);
  }
  out.stats = {};
  ExactBytes sent;
  ExactBytes reduced;
  for (const std::uint32_t timed : graph.timed_as) {
    out.stats += channel_totals[timed].counts;
    sent.add(channel_totals[timed].sent);
    reduced.add(channel_totals[timed].reduced);
  }
  out.stats.bytes_sent = sent.value();
  out.stats.bytes_reduced = reduced.value();
  return true;
}

// A round of pass 2's fluid simulation: each participant's middle step, started when the sweep started it. Every
// peer's drain moves to the one measured there (the first round) or halfway to it (later rounds: see
// time_pipeline). Returns the simulation's link traffic.
std::vector<LinkTraffic> measure_drains(const Topology& topology, Graph& graph, const ExecutorOptions& options,
                                        const Sweep& sweep, bool first_round) {
  std::vector<SnapshotTransfer> transfers;
  std::vector<Peer*> peer_of;
  SimTime earliest = SimTime::from_ps(std::numeric_limits<std::int64_t>::max());
  for (std::size_t p = 0; p < graph.steps.size(); ++p) {
    if (sweep.middle_step[p] != kNone) earliest = std::min(earliest, sweep.middle_start[p]);
  }
  PlanStep scratch;
  for (std::uint32_t p = 0; p < graph.steps.size(); ++p) {
    if (sweep.middle_step[p] == kNone) continue;
    graph.plan_of[p]->step(Rank{graph.local[p]}, sweep.middle_step[p], scratch);
    for (const PlanSend& send : scratch.sends) {
      Peer& peer = *find_peer(graph, p, p - graph.local[p] + send.dst.value());
      const double wire = wire_bytes(options.cost, peer.route_class, send.bytes);
      transfers.push_back({peer.snapshot_route, wire, peer.latency, sweep.middle_start[p] - earliest});
      peer_of.push_back(&peer);
    }
  }
  SnapshotTiming timing = simulate_snapshot(topology, transfers);
  for (std::size_t i = 0; i < transfers.size(); ++i) {
    Peer& peer = *peer_of[i];
    SimTime drain = timing.drained[i];
    if (!first_round) {
      const SimTime before = drain_of(peer, transfers[i].wire_bytes);
      drain = SimTime::from_ps(before.ps() + (drain.ps() - before.ps()) / 2);
    }
    peer.measured_wire = transfers[i].wire_bytes;
    peer.measured_drain = drain;
  }
  return std::move(timing.links);
}

}  // namespace

struct PipelinePass {
  Graph graph;
  Sweep alone;  // pass 1
};

void PipelinePassDeleter::operator()(PipelinePass* pass) const {
  delete pass;
}

namespace {

// The graph and pass 1, or nullptr where the recurrence does not apply.
PipelineStart first_pass(Router& router, std::span<const CollectivePlan* const> channels,
                         const std::vector<std::vector<NodeId>>& gpus, const ExecutorOptions& options) {
  PipelineStart pass(new PipelinePass);
  Graph& graph = pass->graph;
  if (!read_peers(router, channels, gpus, options, graph) || !order_participants(graph)) return nullptr;
  // The sweeps visit the timed channels only: a channel of a class takes its timed channel's times.
  if (options.symmetry) find_channel_classes(router.topology(), channels, graph);
  std::erase_if(graph.order,
                [&](std::uint32_t p) { return graph.timed_as[graph.channel_of[p]] != graph.channel_of[p]; });
  if (!run_sweep(graph, options, pass->alone)) return nullptr;
  return pass;
}

}  // namespace

std::optional<LockstepTiming> time_pipeline(Router& router, std::span<const CollectivePlan* const> channels,
                                            const std::vector<std::vector<NodeId>>& gpus,
                                            const ExecutorOptions& options, PipelineStart start) {
  SYNCSIM_INVARIANT(gpus.size() == channels.size(), "pipeline lockstep: one GPU list per channel expected");
  if (!start) start = first_pass(router, channels, gpus, options);
  if (!start) return std::nullopt;
  Graph& graph = start->graph;

  // Pass 1, then the rounds of pass 2. One round overshoots: offsets from the uncontended first pass pack the
  // transfers closer than they run, so their snapshot is more contended than the per-flow run, and offsets from
  // that spread them too far. Moving each drain halfway per round settles near the per-flow result within a few
  // rounds (docs/collectives.md measures the choice of four). Each round's sweep takes its snapshot at the middle
  // of the previous sweep.
  constexpr int kRounds = 4;
  Sweep sweep = std::move(start->alone);
  std::vector<LinkTraffic> snapshot;
  for (int round = 0; round < kRounds; ++round) {
    sweep.middle = SimTime::from_ps(sweep.finish.ps() / 2);
    run_sweep(graph, options, sweep);
    snapshot = measure_drains(router.topology(), graph, options, sweep, round == 0);
  }
  sweep.middle.reset();
  run_sweep(graph, options, sweep);

  LockstepTiming timing;
  timing.time = sweep.finish;
  timing.stats = sweep.stats;
  timing.step_simulations = kRounds;
  timing.timed_channels = collectives_detail::timed_channels(graph);
  // Every link's bytes over the collective; busy for as long as the snapshot kept it busy per byte, and at least its
  // bytes at its rate. Capacity holds: the collective takes at least the busiest link's bytes at its rate.
  const Topology& topology = router.topology();
  // A link of a class carries what its stand-in does (channel_classes.hpp): the timed channels' bytes on their
  // snapshot routes.
  std::vector<ExactBytes> bytes(topology.link_count());
  for (const Peer& peer : graph.peers) {
    for (const LinkId link : peer.snapshot_route->links) bytes[link.value()].add(peer.wire_sent);
  }
  std::vector<const LinkTraffic*> measured(topology.link_count(), nullptr);
  for (const LinkTraffic& link : snapshot) measured[link.link.value()] = &link;
  for (std::uint32_t l = 0; l < bytes.size(); ++l) {
    const std::uint32_t stand_in = graph.link_class.empty() ? l : graph.link_class[l];
    const double carried = bytes[stand_in].value();
    if (carried <= 0) continue;
    const SimTime at_rate = SimTime::from_seconds(carried / topology.link(LinkId{l}).bandwidth.bytes_per_second);
    SimTime busy = at_rate;
    if (measured[stand_in] != nullptr && measured[stand_in]->bytes_carried > 0) {
      busy = std::max(busy, measured[stand_in]->busy_time.scaled(carried / measured[stand_in]->bytes_carried));
    }
    timing.links.push_back({LinkId{l}, carried, busy});
    timing.time = std::max(timing.time, at_rate);
  }
  return timing;
}

std::optional<SimTime> alone_bound(Router& router, std::span<const CollectivePlan* const> channels,
                                   const std::vector<std::vector<NodeId>>& gpus, const ExecutorOptions& options,
                                   PipelineStart* keep) {
  PipelineStart pass = first_pass(router, channels, gpus, options);
  if (!pass) return std::nullopt;
  // A shared transfer's drain is rounded to the picosecond piece by piece, each time its rate changes, so it may
  // end a few picoseconds before its drain alone; along a path of thousands of steps that stays far below this.
  constexpr double kRoundingSlack = 1e-4;
  const auto bound = static_cast<std::int64_t>(static_cast<double>(pass->alone.finish.ps()) * (1 - kRoundingSlack));
  if (keep != nullptr) *keep = std::move(pass);
  return SimTime::from_ps(bound);
}

}  // namespace syncsim::collectives_detail
