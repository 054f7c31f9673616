#include "pipeline_lockstep.hpp"

#include <algorithm>
#include <limits>

#include "fluid_snapshot.hpp"
#include "plan_routes.hpp"
#include "syncsim/collectives/transfer_cost.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim::collectives_detail {

namespace {

constexpr std::uint32_t kNone = ~std::uint32_t{0};
constexpr std::size_t kMaxPeers = 8;

// A participant's peer: the route it sends on and how long its sends there take.
struct Peer {
  std::uint32_t dst = kNone;  // the receiving participant, numbered across channels
  const Route* route = nullptr;
  LinkKind route_class = LinkKind::nvlink;
  SimTime latency;
  // The drain measured in pass 2 for a send of `measured_wire` wire bytes; until then (0) alone on the route.
  double measured_wire = 0;
  SimTime measured_drain;
  double wire_sent = 0;  // over the whole collective, for the links' traffic
};

// Every participant of every channel, numbered channel by channel, with its peers and its place in the order.
struct Graph {
  std::vector<const CollectivePlan*> plan_of;  // per participant
  std::vector<std::uint32_t> local;            // its number within its channel's plan
  std::vector<std::uint32_t> steps;
  std::vector<std::uint32_t> peer_begin;  // participant p's peers are peers[peer_begin[p] .. peer_begin[p+1])
  std::vector<Peer> peers;
  std::vector<std::uint32_t> order;  // every participant after all that send to it
};

Peer* find_peer(Graph& graph, std::uint32_t p, std::uint32_t dst) {
  for (std::uint32_t k = graph.peer_begin[p]; k < graph.peer_begin[p + 1]; ++k) {
    if (graph.peers[k].dst == dst) return &graph.peers[k];
  }
  return nullptr;
}

// Each participant's peers, read off its first two steps and its last: a pipeline sends to the same peers at every
// step but where it fills and drains. A send to any other peer makes the sweep give up (the executors then run the
// plan), so a plan this misreads is never timed wrong. false when a participant has too many peers.
bool read_peers(Router& router, std::span<const CollectivePlan* const> channels,
                const std::vector<std::vector<NodeId>>& gpus, const ExecutorOptions& options, Graph& graph) {
  PlanStep scratch;
  graph.peer_begin.push_back(0);
  for (std::size_t c = 0; c < channels.size(); ++c) {
    const CollectivePlan& plan = *channels[c];
    const auto base = static_cast<std::uint32_t>(graph.plan_of.size());
    const auto count = static_cast<std::uint32_t>(plan.participant_count());
    PlanRoutes routes(router, participant_nodes(plan, gpus[c]));
    for (std::uint32_t p = 0; p < count; ++p) {
      const std::uint32_t steps = plan.step_count(Rank{p});
      const auto first = static_cast<std::uint32_t>(graph.peers.size());
      for (const std::uint32_t s : {0U, 1U, steps - 1}) {
        if (s >= steps) continue;
        plan.step(Rank{p}, s, scratch);
        for (const PlanSend& send : scratch.sends) {
          if (send.dst.value() >= count) return false;
          const std::uint32_t dst = base + send.dst.value();
          const auto known = std::find_if(graph.peers.begin() + first, graph.peers.end(),
                                          [&](const Peer& peer) { return peer.dst == dst; });
          if (known != graph.peers.end()) continue;
          if (graph.peers.size() - first == kMaxPeers) return false;
          const PeerRoute& peer = routes.route(Rank{p}, send.dst);
          Peer& added = graph.peers.emplace_back();
          added.dst = dst;
          added.route = peer.route;
          added.route_class = peer.route_class;
          added.latency = step_latency(options.cost, peer.route_class, *peer.route);
        }
      }
      graph.plan_of.push_back(&plan);
      graph.local.push_back(p);
      graph.steps.push_back(steps);
      graph.peer_begin.push_back(static_cast<std::uint32_t>(graph.peers.size()));
    }
  }
  return true;
}

// A topological order: depth-first over each participant's senders, emitting a participant after all of them.
// Started from the participants in their order, a tree is walked subtree by subtree, so few participants wait with
// part of their inputs (pipeline_lockstep.hpp). false on a cycle.
bool order_participants(Graph& graph) {
  const std::size_t n = graph.steps.size();
  std::vector<std::uint32_t> sender_begin(n + 1, 0);
  for (const Peer& peer : graph.peers) ++sender_begin[peer.dst + 1];
  for (std::size_t p = 0; p < n; ++p) sender_begin[p + 1] += sender_begin[p];
  std::vector<std::uint32_t> senders(graph.peers.size());
  std::vector<std::uint32_t> fill(sender_begin.begin(), sender_begin.end() - 1);
  for (std::uint32_t p = 0; p < n; ++p) {
    for (std::uint32_t k = graph.peer_begin[p]; k < graph.peer_begin[p + 1]; ++k) {
      senders[fill[graph.peers[k].dst]++] = p;
    }
  }
  enum : std::uint8_t { kUnseen, kOpen, kDone };
  std::vector<std::uint8_t> state(n, kUnseen);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> stack;  // participant, next sender to visit
  graph.order.reserve(n);
  for (std::uint32_t start = 0; start < n; ++start) {
    if (state[start] != kUnseen) continue;
    state[start] = kOpen;
    stack.emplace_back(start, sender_begin[start]);
    while (!stack.empty()) {
      auto& [p, next] = stack.back();
      if (next == sender_begin[p + 1]) {
        state[p] = kDone;
        graph.order.push_back(p);
        stack.pop_back();
        continue;
      }
      const std::uint32_t q = senders[next++];
      if (state[q] == kOpen) return false;
      if (state[q] == kUnseen) {
        state[q] = kOpen;
        stack.emplace_back(q, sender_begin[q]);
      }
    }
  }
  return true;
}

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
  ExecutorStats stats;
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
  out.stats = {};
  if (out.middle) {
    out.middle_step.assign(n, kNone);
    out.middle_start.assign(n, SimTime::zero());
  }
  for (Peer& peer : graph.peers) peer.wire_sent = 0;
  for (const std::uint32_t p : graph.order) {
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
        ++out.stats.transfers;
        out.stats.bytes_sent += send.bytes;
      }
      if (out.middle && !scratch.sends.empty() && (out.middle_step[p] == kNone || x <= *out.middle)) {
        out.middle_step[p] = s;
        out.middle_start[p] = x;
      }
      out.stats.bytes_reduced += scratch.reduce_bytes;
      x = done + reduction_time(options.reduction_rate, scratch.reduce_bytes);
    }
    out.stats.bulk_steps += steps;
    out.finish = std::max(out.finish, x);
  }
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
      transfers.push_back({peer.route, wire, peer.latency, sweep.middle_start[p] - earliest});
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
  if (!read_peers(router, channels, gpus, options, pass->graph) || !order_participants(pass->graph) ||
      !run_sweep(pass->graph, options, pass->alone)) {
    return nullptr;
  }
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
  // Every link's bytes over the collective; busy for as long as the snapshot kept it busy per byte, and at least its
  // bytes at its rate. Capacity holds: the collective takes at least the busiest link's bytes at its rate.
  const Topology& topology = router.topology();
  std::vector<double> bytes(topology.link_count(), 0);
  for (const Peer& peer : graph.peers) {
    for (const LinkId link : peer.route->links) bytes[link.value()] += peer.wire_sent;
  }
  std::vector<const LinkTraffic*> measured(topology.link_count(), nullptr);
  for (const LinkTraffic& link : snapshot) measured[link.link.value()] = &link;
  for (std::uint32_t l = 0; l < bytes.size(); ++l) {
    if (bytes[l] <= 0) continue;
    const SimTime at_rate = SimTime::from_seconds(bytes[l] / topology.link(LinkId{l}).bandwidth.bytes_per_second);
    SimTime busy = at_rate;
    if (measured[l] != nullptr && measured[l]->bytes_carried > 0) {
      busy = std::max(busy, measured[l]->busy_time.scaled(bytes[l] / measured[l]->bytes_carried));
    }
    timing.links.push_back({LinkId{l}, bytes[l], busy});
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
