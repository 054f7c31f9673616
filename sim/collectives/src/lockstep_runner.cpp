#include "syncsim/collectives/lockstep_runner.hpp"

#include <algorithm>
#include <map>
#include <span>

#include "channel_classes.hpp"
#include "cycle_recurrence.hpp"
#include "fluid_snapshot.hpp"
#include "pipeline_graph.hpp"
#include "symmetry_classes.hpp"
#include "syncsim/collectives/transfer_cost.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/sim_time_overflow.hpp"

namespace syncsim {

namespace {

using collectives_detail::CycleRecurrence;
using collectives_detail::Graph;
using collectives_detail::Recurrence;
using collectives_detail::simulate_snapshot;
using collectives_detail::SnapshotTiming;
using collectives_detail::SnapshotTransfer;
using collectives_detail::SymmetryClasses;

// One distinct combined step (a tuple of pattern ids), how often the collective takes it, and its timing. Uniform
// steps give every rank (of every channel; index channel * ranks + rank) exactly one send and one receive, so the
// step is a permutation: rank i receives from pred[i].
struct CombinedStep {
  std::uint32_t first_step = 0;  // where to read its transfers from the plans
  std::uint64_t occurrences = 0;
  std::uint32_t representative = 0;  // the step whose start offsets pass 2 simulates (the middle occurrence)
  std::vector<SimTime> latency;      // of rank i's send
  std::vector<SimTime> drained;      // rank i's send: its last byte left, after the send started
  std::vector<SimTime> arrived;      // rank i's send: it arrived, after the send started
  std::vector<SimTime> reduction;    // rank i, after its receive
  // rank i's predecessor, and the recurrence's weights in picoseconds (see advance): rank i's own send, and the send
  // it receives.
  Recurrence recurrence;
  std::vector<LinkTraffic> links;
  double bytes_sent = 0;
  double bytes_reduced = 0;
};

// Reads the combined step `step.first_step` of all channels. Returns false when a plan's step is not what
// uniform_pattern promised (one send and one receive per rank, every send feeding the receiver's same step):
// lockstep would then be wrong, and the caller falls back to the executors.
bool read_step(Router& router, std::span<const CollectivePlan* const> channels,
               const std::vector<std::vector<NodeId>>& gpus, const ExecutorOptions& options, CombinedStep& step,
               std::vector<const Route*>& routes, std::vector<double>& wire) {
  const Topology& topology = router.topology();
  const auto ranks = static_cast<std::uint32_t>(gpus.front().size());
  const std::size_t states = channels.size() * ranks;
  constexpr std::uint32_t kNone = ~std::uint32_t{0};
  std::vector<std::uint32_t>& pred = step.recurrence.pred;
  pred.assign(states, kNone);
  step.latency.assign(states, SimTime::zero());
  step.reduction.assign(states, SimTime::zero());
  routes.assign(states, nullptr);
  wire.assign(states, 0);
  PlanStep scratch;
  for (std::uint32_t c = 0; c < channels.size(); ++c) {
    for (std::uint32_t r = 0; r < ranks; ++r) {
      channels[c]->step(Rank{r}, step.first_step, scratch);
      if (scratch.sends.size() != 1 || scratch.recv_count != 1) return false;
      const PlanSend& send = scratch.sends[0];
      const std::uint32_t i = c * ranks + r;
      const std::uint32_t j = c * ranks + send.dst.value();
      if (send.dst_step != step.first_step || send.dst.value() >= ranks || pred[j] != kNone) return false;
      pred[j] = i;
      routes[i] = &router.route(gpus[c][r], gpus[c][send.dst.value()]);
      step.latency[i] = step_latency(options.cost, topology, *routes[i]);
      wire[i] = wire_bytes(options.cost, topology, *routes[i], send.bytes);
      step.reduction[i] = reduction_time(options.reduction_rate, scratch.reduce_bytes);
      step.bytes_sent += send.bytes;
      step.bytes_reduced += scratch.reduce_bytes;
    }
  }
  return true;
}

// Each transfer as if alone on its route: the first pass, before any offsets are known.
void time_alone(CombinedStep& step, const std::vector<const Route*>& routes, const std::vector<double>& wire,
                std::uint32_t copies) {
  step.drained.resize(routes.size());
  step.arrived.resize(routes.size());
  for (std::size_t i = 0; i < routes.size(); ++i) {
    step.drained[i] = FlowModel::drain_time(copies > 1 ? wire[i] / copies : wire[i], routes[i]->bottleneck);
    step.arrived[i] = step.drained[i] + step.latency[i];
  }
}

// Channels alike up to a renaming of ranks and links (channel_classes.hpp): the rings of a DGX cluster's rails.
// nullopt when there are none.
std::optional<Graph> channel_classes(Router& router, std::span<const CollectivePlan* const> channels,
                                     const std::vector<std::vector<NodeId>>& gpus, const ExecutorOptions& options) {
  Graph graph;
  if (channels.size() < 2 || !collectives_detail::read_peers(router, channels, gpus, options, graph)) {
    return std::nullopt;
  }
  collectives_detail::find_channel_classes(router.topology(), channels, graph);
  if (graph.link_class.empty()) return std::nullopt;
  return graph;
}

// The snapshot route of state i's send on `route`: its peer's on the classes' links; nullptr when the send is not
// to a peer the classes checked (a plan whose peers change from step to step).
const Route* class_route(const Graph& classes, std::uint32_t i, const Route* route) {
  for (std::uint32_t x = classes.peer_begin[i]; x < classes.peer_begin[i + 1]; ++x) {
    if (classes.peers[x].route == route) return classes.peers[x].snapshot_route;
  }
  return nullptr;
}

// The step's snapshot with the timed channels' sends only, on the classes' links (channel_classes.hpp): a state of
// another channel takes the times of the state it runs as, a link the traffic of its class's stand-in. false when
// a send is not to a checked peer.
bool simulate_timed_channels(const Topology& topology, CombinedStep& step, const Graph& classes,
                             const std::vector<const Route*>& routes, const std::vector<double>& wire,
                             const std::vector<SimTime>& offsets) {
  std::vector<SnapshotTransfer> transfers;
  std::vector<std::uint32_t> timed;
  for (std::uint32_t i = 0; i < routes.size(); ++i) {
    if (classes.timed_participant[i] != i) continue;
    const Route* route = class_route(classes, i, routes[i]);
    if (route == nullptr) return false;
    transfers.push_back({route, wire[i], step.latency[i], offsets[i]});
    timed.push_back(i);
  }
  const SnapshotTiming timing = simulate_snapshot(topology, transfers);
  step.drained.assign(routes.size(), SimTime::zero());
  step.arrived.assign(routes.size(), SimTime::zero());
  for (std::size_t k = 0; k < timed.size(); ++k) {
    step.drained[timed[k]] = timing.drained[k];
    step.arrived[timed[k]] = timing.arrived[k];
  }
  for (std::uint32_t i = 0; i < routes.size(); ++i) {
    step.drained[i] = step.drained[classes.timed_participant[i]];
    step.arrived[i] = step.arrived[classes.timed_participant[i]];
  }
  std::vector<const LinkTraffic*> stand_in(topology.link_count(), nullptr);
  for (const LinkTraffic& link : timing.links) stand_in[link.link.value()] = &link;
  step.links.clear();
  for (std::uint32_t l = 0; l < topology.link_count(); ++l) {
    if (const LinkTraffic* traffic = stand_in[classes.link_class[l]]) {
      step.links.push_back({LinkId{l}, traffic->bytes_carried, traffic->busy_time});
    }
  }
  return true;
}

// Times the combined step by a fluid simulation of it alone on a fresh network, rank i's send starting at
// offsets[i]; each transfer's times are kept relative to its own start. With channel classes, the timed channels'
// sends stand for all.
void simulate_step(const Topology& topology, CombinedStep& step, const Graph* classes,
                   const std::vector<const Route*>& routes, const std::vector<double>& wire,
                   const std::vector<SimTime>& offsets) {
  if (classes != nullptr && simulate_timed_channels(topology, step, *classes, routes, wire, offsets)) return;
  std::vector<SnapshotTransfer> transfers(routes.size());
  for (std::size_t i = 0; i < routes.size(); ++i) transfers[i] = {routes[i], wire[i], step.latency[i], offsets[i]};
  SnapshotTiming timing = simulate_snapshot(topology, transfers);
  step.drained = std::move(timing.drained);
  step.arrived = std::move(timing.arrived);
  step.links = std::move(timing.links);
}

// The recurrence's weights (see advance) from the step's transfer times.
void set_weights(CombinedStep& step) {
  const std::size_t states = step.drained.size();
  Recurrence& r = step.recurrence;
  r.self_weight.resize(states);
  r.receive_weight.resize(states);
  for (std::size_t i = 0; i < states; ++i) {
    r.self_weight[i] = (step.drained[i] + step.reduction[i]).ps();
    r.receive_weight[i] = (step.arrived[r.pred[i]] + step.reduction[i]).ps();
  }
}

// One step for every rank of every channel, as the executor runs it: rank i is done with the step when its send
// has left and its receive has arrived, then it reduces. `start` holds the ranks' start of this step (ps);
// `next_start` receives their start of the next. This loop is the fast path's hot spot (steps x ranks x channels),
// hence raw picoseconds and precomputed weights.
void advance(const Recurrence& step, const std::vector<std::int64_t>& start, std::vector<std::int64_t>& next_start) {
  const std::size_t states = start.size();
  const std::uint32_t* pred = step.pred.data();
  const std::int64_t* self = step.self_weight.data();
  const std::int64_t* receive = step.receive_weight.data();
  bool overflow = false;  // checked once per step, not per rank: the loop stays branch-free
  for (std::size_t i = 0; i < states; ++i) {
    std::int64_t sent = 0;
    std::int64_t received = 0;
    overflow |= __builtin_add_overflow(start[i], self[i], &sent);
    overflow |= __builtin_add_overflow(start[pred[i]], receive[i], &received);
    next_start[i] = std::max(sent, received);
  }
  if (overflow) throw SimTimeOverflow("the steps of a collective (run in lockstep over its channels)");
}

using Shapes = std::map<std::vector<std::uint32_t>, CombinedStep>;

// The recurrences the steps run: each shape's own over all n·C states, or, with symmetry on and classes found, its
// quotient over the symmetry classes (symmetry_classes.hpp), which gives every state's value exactly.
struct StepRecurrences {
  std::vector<const Recurrence*> by_step;
  std::size_t states = 0;  // of the recurrences run
  std::optional<SymmetryClasses> classes;
  bool by_cycles = false;  // ran a run of steps at a time (run_steps_by_cycles), not step by step
};

void choose_recurrences(const Shapes& shapes, const std::vector<CombinedStep*>& step_shapes, std::size_t states,
                        bool symmetry, StepRecurrences& chosen) {
  std::vector<const Recurrence*> own;
  for (const auto& [key, step] : shapes) own.push_back(&step.recurrence);
  chosen.classes.reset();
  if (symmetry) {
    // A round of refinement costs about as much as a few dozen steps of the full recurrence: refinement may spend
    // a small part of what the quotient would save before giving up. The quotient must also be much smaller.
    const std::size_t steps = step_shapes.size();
    const std::size_t max_rounds = std::clamp<std::size_t>(steps / (16 * own.size()), 8, 512);
    chosen.classes = collectives_detail::symmetry_classes(own, states, states / 4, max_rounds);
  }
  std::map<const CombinedStep*, const Recurrence*> of;
  std::size_t k = 0;
  for (const auto& [key, step] : shapes) {
    of[&step] = chosen.classes ? &chosen.classes->quotient[k] : &step.recurrence;
    ++k;
  }
  chosen.by_step.clear();
  for (const CombinedStep* step : step_shapes) chosen.by_step.push_back(of.at(step));
  chosen.states = chosen.classes ? chosen.classes->count : states;
}

using RepresentativeStarts = std::map<const CombinedStep*, std::vector<SimTime>>;

// Keeps every rank's start time at step `s` if it is its shape's representative (read off the classes, if any).
void keep_if_representative(const std::vector<CombinedStep*>& step_shapes, const StepRecurrences& recurrences,
                            std::size_t s, std::size_t states, const std::vector<std::int64_t>& start,
                            RepresentativeStarts* representative_starts) {
  const CombinedStep& step = *step_shapes[s];
  if (representative_starts == nullptr || step.representative != s) return;
  std::vector<SimTime>& kept = (*representative_starts)[&step];
  kept.resize(states);
  for (std::size_t i = 0; i < states; ++i) {
    kept[i] = SimTime::from_ps(start[recurrences.classes ? recurrences.classes->class_of[i] : i]);
  }
}

// Runs the recurrence over the first `steps` steps, one by one; records, for each shape, the ranks' start times at
// its representative step.
SimTime run_steps(const std::vector<CombinedStep*>& step_shapes, const StepRecurrences& recurrences, std::size_t steps,
                  std::size_t states, RepresentativeStarts* representative_starts) {
  std::vector<std::int64_t> start(recurrences.states, 0);
  std::vector<std::int64_t> next_start(recurrences.states);
  for (std::uint32_t s = 0; s < steps; ++s) {
    keep_if_representative(step_shapes, recurrences, s, states, start, representative_starts);
    advance(*recurrences.by_step[s], start, next_start);
    start.swap(next_start);
  }
  return SimTime::from_ps(*std::max_element(start.begin(), start.end()));
}

// The same a run of one shape at a time, each run evaluated at once along the cycles of the predecessors
// (cycle_recurrence.hpp); runs also end at representative steps. nullopt when the predecessors are not one
// permutation, or a run's levels pass the budget of 32 per rank (random weights give about ln n; many more mean
// weights that climb along the ring, where stepping one by one costs no more).
std::optional<SimTime> run_steps_by_cycles(const std::vector<CombinedStep*>& step_shapes,
                                           const StepRecurrences& recurrences, std::size_t steps, std::size_t states,
                                           RepresentativeStarts* representative_starts) {
  std::vector<const Recurrence*> distinct(recurrences.by_step.begin(), recurrences.by_step.end());
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  const std::optional<CycleRecurrence> cycles = CycleRecurrence::make(distinct, recurrences.states);
  if (!cycles) return std::nullopt;
  std::vector<std::int64_t> start(recurrences.states, 0);
  const auto representative = [&](std::size_t s) {
    return representative_starts != nullptr && step_shapes[s]->representative == s;
  };
  for (std::size_t s = 0; s < steps;) {
    keep_if_representative(step_shapes, recurrences, s, states, start, representative_starts);
    std::size_t end = s + 1;
    while (end < steps && step_shapes[end] == step_shapes[s] && !representative(end)) ++end;
    if (!cycles->advance(*recurrences.by_step[s], end - s, start, 32 * recurrences.states)) return std::nullopt;
    s = end;
  }
  return SimTime::from_ps(*std::max_element(start.begin(), start.end()));
}

// The recurrence over the first `steps` steps, the fastest exact way. With symmetry on: over the classes when they
// are few, else along the cycles of the classes or of the ranks (a ring), else step by step over the classes. With
// it off, rank by rank step by step: the plain recurrence the tests hold the others equal to.
SimTime run_recurrence(const Shapes& shapes, const std::vector<CombinedStep*>& step_shapes, std::size_t steps,
                       std::size_t states, bool symmetry, StepRecurrences& chosen,
                       RepresentativeStarts* representative_starts) {
  choose_recurrences(shapes, step_shapes, states, symmetry, chosen);
  chosen.by_cycles = false;
  // Stepping over this many class-steps costs well under a second: no need for anything cleverer.
  constexpr std::size_t kCheapClassSteps = std::size_t{1} << 26;
  if (!symmetry || (chosen.classes && chosen.states * steps <= kCheapClassSteps)) {
    return run_steps(step_shapes, chosen, steps, states, representative_starts);
  }
  if (std::optional<SimTime> time = run_steps_by_cycles(step_shapes, chosen, steps, states, representative_starts)) {
    chosen.by_cycles = true;
    return *time;
  }
  if (chosen.classes) {
    // The classes' predecessors are no permutation: the ranks' own may still be one.
    StepRecurrences ranks;
    choose_recurrences(shapes, step_shapes, states, false, ranks);
    if (std::optional<SimTime> time = run_steps_by_cycles(step_shapes, ranks, steps, states, representative_starts)) {
      chosen = std::move(ranks);
      chosen.by_cycles = true;
      return *time;
    }
  }
  return run_steps(step_shapes, chosen, steps, states, representative_starts);
}

// Whether transfers of two or more channels cross each link (state i belongs to channel i / ranks).
template <typename Transfers>
std::vector<bool> links_shared_by_channels(const Transfers& transfers, std::size_t link_count, std::size_t ranks) {
  constexpr std::size_t kNone = ~std::size_t{0};
  std::vector<std::size_t> channel_on(link_count, kNone);
  std::vector<bool> shared(link_count, false);
  for (const auto& [step, routes_and_wire] : transfers) {
    const auto& routes = routes_and_wire.first;
    for (std::size_t i = 0; i < routes.size(); ++i) {
      const std::size_t channel = i / ranks;
      for (const LinkId link : routes[i]->links) {
        std::size_t& seen = channel_on[link.value()];
        if (seen == kNone) seen = channel;
        if (seen != channel) shared[link.value()] = true;
      }
    }
  }
  return shared;
}

}  // namespace

std::optional<LockstepTiming> time_lockstep(Router& router, std::span<const CollectivePlan* const> channels,
                                            const std::vector<NodeId>& gpus, const ExecutorOptions& options) {
  return time_lockstep(router, channels, std::vector<std::vector<NodeId>>(channels.size(), gpus), options);
}

std::optional<LockstepTiming> time_lockstep(Router& router, std::span<const CollectivePlan* const> channels,
                                            const std::vector<std::vector<NodeId>>& gpus,
                                            const ExecutorOptions& options, std::uint32_t copies) {
  if (channels.empty()) return std::nullopt;
  const std::size_t ranks = channels[0]->rank_count();
  SYNCSIM_INVARIANT(gpus.size() == channels.size(), "lockstep: one GPU list per channel expected");
  for (const std::vector<NodeId>& channel_gpus : gpus) {
    SYNCSIM_INVARIANT(channel_gpus.size() == ranks, "lockstep: one GPU per rank expected");
  }
  const std::uint32_t steps = channels[0]->step_count(Rank{0});
  for (const CollectivePlan* plan : channels) {
    if (plan->rank_count() != ranks || plan->participant_count() != ranks) return std::nullopt;
    for (std::uint32_t r = 0; r < ranks; ++r) {
      if (plan->step_count(Rank{r}) != steps) return std::nullopt;
    }
  }

  // The pattern tuple of every step first: a plan that is not uniform costs no simulation.
  Shapes shapes;
  std::vector<std::uint32_t> ids(channels.size());
  std::vector<CombinedStep*> step_shapes(steps);  // std::map keeps its nodes in place
  for (std::uint32_t s = 0; s < steps; ++s) {
    for (std::size_t c = 0; c < channels.size(); ++c) {
      const std::optional<std::uint32_t> id = channels[c]->uniform_pattern(s);
      if (!id) return std::nullopt;
      ids[c] = *id;
    }
    const auto [it, inserted] = shapes.try_emplace(ids);
    if (inserted) it->second.first_step = s;
    ++it->second.occurrences;
    step_shapes[s] = &it->second;
  }
  // The middle occurrence of each shape: far enough in for the ranks to have drifted apart.
  std::map<const CombinedStep*, std::uint64_t> seen;
  for (std::uint32_t s = 0; s < steps; ++s) {
    CombinedStep& step = *step_shapes[s];
    if (seen[&step]++ == step.occurrences / 2) step.representative = s;
  }

  // Pass 1: every transfer alone on its route (no sharing). Pass 2: each shape re-simulated as one fluid step with
  // the ranks started at the offsets pass 1 gives at its representative step, so that transfers sharing a link
  // overlap as much as the schedule makes them; then the recurrence again with those times.
  const std::size_t states = channels.size() * ranks;
  std::map<const CombinedStep*, std::pair<std::vector<const Route*>, std::vector<double>>> transfers;
  for (auto& [key, step] : shapes) {
    auto& [routes, wire] = transfers[&step];
    if (!read_step(router, channels, gpus, options, step, routes, wire)) return std::nullopt;
    time_alone(step, routes, wire, copies);
    set_weights(step);
  }
  std::map<const CombinedStep*, std::vector<SimTime>> starts;
  std::size_t first_pass_steps = 0;  // up to the last representative: the rest would not be read
  for (const auto& [key, step] : shapes) {
    first_pass_steps = std::max<std::size_t>(first_pass_steps, step.representative + 1);
  }
  StepRecurrences recurrences;
  run_recurrence(shapes, step_shapes, first_pass_steps, states, options.symmetry, recurrences, &starts);
  const std::optional<Graph> classes =
      options.symmetry ? channel_classes(router, channels, gpus, options) : std::nullopt;
  for (auto& [key, step] : shapes) {
    std::vector<SimTime>& offsets = starts.at(&step);
    const SimTime first = *std::min_element(offsets.begin(), offsets.end());
    for (SimTime& t : offsets) t -= first;
    const auto& [routes, wire] = transfers.at(&step);
    simulate_step(router.topology(), step, classes ? &*classes : nullptr, routes, wire, offsets);
    set_weights(step);
  }
  const SimTime time = run_recurrence(shapes, step_shapes, steps, states, options.symmetry, recurrences, nullptr);

  LockstepTiming timing;
  timing.time = time;
  std::vector<LinkTraffic> by_link(router.topology().link_count());
  for (const auto& [key, step] : shapes) {
    const auto k = static_cast<std::int64_t>(step.occurrences);
    timing.stats.transfers += states * step.occurrences;
    timing.stats.bytes_sent += step.bytes_sent * static_cast<double>(k);
    timing.stats.bytes_reduced += step.bytes_reduced * static_cast<double>(k);
    for (const LinkTraffic& link : step.links) {
      LinkTraffic& total = by_link[link.link.value()];
      total.bytes_carried += link.bytes_carried * static_cast<double>(k);
      total.busy_time += link.busy_time * k;
    }
  }
  timing.step_simulations = shapes.size();
  timing.symmetry_classes = recurrences.classes ? recurrences.classes->count : 0;
  timing.by_cycles = recurrences.by_cycles;
  timing.timed_channels = classes ? collectives_detail::timed_channels(*classes) : 0;
  timing.stats.bulk_steps = std::uint64_t{steps} * channels.size();
  // Capacity holds whatever the offsets did: pass 2 may stagger the channels that meet on a link so far apart that
  // their transfers barely overlap (32 rings on one GPU's NVLink timed as if each had it alone). NCCL's channels
  // start together and each waits at every step for its predecessor, so they stay in step, and a link that several
  // of them share idles for a step's latency between steps: it takes its bytes at its rate plus the shortest
  // latency of every step, as NCCL's cost model adds them (src/graph/tuning.cc). A link that one channel has to
  // itself (a rail's NIC) is kept busy back to back by the recurrence already; it only bounds by its bytes.
  SimTime latency_chain;
  for (const auto& [key, step] : shapes) {
    latency_chain +=
        *std::min_element(step.latency.begin(), step.latency.end()) * static_cast<std::int64_t>(step.occurrences);
  }
  const std::vector<bool> shared = links_shared_by_channels(transfers, router.topology().link_count(), ranks);
  for (std::uint32_t l = 0; l < by_link.size(); ++l) {
    if (by_link[l].bytes_carried > 0) {
      timing.links.push_back({LinkId{l}, by_link[l].bytes_carried, by_link[l].busy_time});
      const double rate = router.topology().link(LinkId{l}).bandwidth.bytes_per_second;
      const bool several = shared[l] || copies > 1;
      const SimTime floor =
          SimTime::from_seconds(by_link[l].bytes_carried / rate) + (several ? latency_chain : SimTime::zero());
      timing.time = std::max(timing.time, floor);
    }
  }
  return timing;
}

}  // namespace syncsim
