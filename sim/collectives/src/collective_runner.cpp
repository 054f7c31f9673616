#include "syncsim/collectives/collective_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "syncsim/collectives/lockstep_runner.hpp"
#include "syncsim/collectives/tree_tuning.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/sim_time_overflow.hpp"

namespace syncsim {

namespace {

// NCCL moves chains in chunks of about 512 KiB; pipelining in slices of that size keeps small messages at one slice
// and lets large ones stream. Trees slice by NCCL's tree chunks (tree_tuning.hpp).
constexpr std::int64_t kSliceBytes = 512 * 1024;
constexpr std::uint32_t kMaxSlices = 16;
// Direct algorithms start n(n-1) flows per step: worth trying only on small groups.
constexpr std::size_t kMaxDirectRanks = 16;

std::uint32_t auto_slices(Bytes size) {
  return static_cast<std::uint32_t>(std::clamp<std::int64_t>(size.value / kSliceBytes, 1, kMaxSlices));
}

bool takes_slices(Algorithm algorithm, CollectiveOp op) {
  if (algorithm == Algorithm::tree) return true;
  return algorithm == Algorithm::ring && (op == CollectiveOp::broadcast || op == CollectiveOp::reduce);
}

struct Candidate {
  Algorithm algorithm;
  std::optional<Protocol> protocol;
  std::optional<std::size_t> regime;  // of spec.calibration
};

TransferCost cost_of(const CollectiveSpec& spec, const Candidate& candidate) {
  if (candidate.regime) return spec.calibration->regimes[*candidate.regime];
  if (candidate.protocol) return nccl_cost(candidate.algorithm, *candidate.protocol);
  return physical_cost();
}

// NCCL's architecture ceiling: busbw = size x bus_factor / time never above spec.busbw_cap.
SimTime capped(const CollectiveSpec& spec, std::size_t ranks, SimTime time) {
  if (!spec.busbw_cap || spec.latency != LatencySource::nccl || ranks < 2) return time;
  const double bytes = static_cast<double>(spec.size.value) * bus_factor(spec.op, ranks);
  return std::max(time, SimTime::from_seconds(bytes / spec.busbw_cap->bytes_per_second));
}

CollectiveOutcome run_candidate(Router& router, const CollectiveSpec& spec, std::size_t ranks, Candidate candidate,
                                const std::vector<std::vector<Rank>>& hosts) {
  const Topology& topology = router.topology();
  const std::uint32_t channels =
      spec.channels ? *spec.channels : default_channels(topology, ranks, candidate.algorithm);
  if (channels == 0) throw InputError("channels must be at least 1");
  ExecutorOptions options;
  options.bulk = spec.bulk;
  options.cost = cost_of(spec, candidate);
  options.record_steps = spec.record_steps;

  const Bytes per_channel{spec.size.value / channels};
  std::vector<std::unique_ptr<CollectivePlan>> plans;
  for (std::uint32_t c = 0; c < channels; ++c) {
    PlanContext context;
    context.hosts = hosts;
    context.root = spec.root;
    context.channel = c;
    // The last channel takes the remainder, so the channels move exactly `size` bytes.
    const Bytes bytes = c + 1 == channels ? Bytes{spec.size.value - per_channel.value * (channels - 1)} : per_channel;
    // Slices apply to chains and trees; other plans move whole steps.
    context.channels = channels;
    if (takes_slices(candidate.algorithm, spec.op)) {
      context.pipeline_slices = spec.pipeline_slices ? *spec.pipeline_slices : auto_slices(bytes);
      if (candidate.algorithm == Algorithm::tree && !spec.pipeline_slices) {
        const std::size_t nodes = hosts.empty() ? ranks : hosts.size();
        context.pipeline_slices =
            tree_slices(bytes, tree_chunk_bytes(candidate.protocol, spec.size, channels, nodes, ranks));
      }
    }
    if (candidate.algorithm == Algorithm::ring) context.ring_order = channel_ring_order(hosts, ranks, c, channels);
    plans.push_back(make_plan(candidate.algorithm, spec.op, ranks, bytes, context));
  }

  std::vector<NodeId> gpus;
  for (std::size_t r = 0; r < ranks; ++r) gpus.push_back(topology.gpu(r));
  CollectiveOutcome outcome;
  outcome.algorithm = candidate.algorithm;
  outcome.protocol = candidate.protocol;
  outcome.regime = candidate.regime;
  outcome.channels = channels;

  // Several channels share links (a DGX GPU's NVLink carries most of them), which breaks the executors' bulk
  // claims and leaves them flow by flow; lockstep times each distinct combined step once (lockstep_runner.hpp).
  // One channel keeps the executor, whose bulk and per-flow paths are exact.
  std::size_t transfers = 0;  // one send per rank and step in a uniform plan
  for (const auto& plan : plans) {
    for (std::size_t r = 0; r < ranks; ++r) transfers += plan->step_count(Rank{static_cast<std::uint32_t>(r)});
  }
  if (spec.bulk && channels > 1 && transfers >= spec.lockstep_min_transfers && !spec.record_steps) {
    std::vector<const CollectivePlan*> channel_plans;
    for (const auto& plan : plans) channel_plans.push_back(plan.get());
    if (std::optional<LockstepTiming> lockstep = time_lockstep(router, channel_plans, gpus, options)) {
      outcome.time = capped(spec, ranks, lockstep->time) + options.cost.launch;
      outcome.stats = lockstep->stats;
      outcome.links = std::move(lockstep->links);
      return outcome;
    }
  }

  Simulator sim;
  FlowModel flows(sim, topology);
  std::vector<std::unique_ptr<CollectiveExecutor>> executors;
  for (const auto& plan : plans) {
    executors.push_back(std::make_unique<CollectiveExecutor>(sim, flows, router, *plan, gpus, options));
    options.record_steps = false;  // channel 0's steps are the outcome's
  }
  for (auto& executor : executors) executor->start();
  sim.run();

  SimTime last;
  for (const auto& executor : executors) {
    SYNCSIM_INVARIANT(executor->done(), "a channel ended with ranks still waiting (deadlock in the plan)");
    last = std::max(last, executor->finish_time());
    const ExecutorStats& s = executor->stats();
    outcome.stats.flows += s.flows;
    outcome.stats.bulk_steps += s.bulk_steps;
    outcome.stats.transfers += s.transfers;
    outcome.stats.bytes_sent += s.bytes_sent;
    outcome.stats.bytes_reduced += s.bytes_reduced;
  }
  outcome.time = capped(spec, ranks, last) + options.cost.launch;
  outcome.links = flows.traffic();
  if (spec.record_steps) {
    // The ranks' own streams; a plan's further participants (second streams, switches) are not ranks.
    const auto& steps = executors.front()->step_starts();
    outcome.step_starts.assign(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(ranks));
  }
  return outcome;
}

}  // namespace

std::vector<std::vector<Rank>> host_groups(const Topology& topology, std::size_t ranks) {
  std::map<int, std::vector<Rank>> by_host;
  for (std::size_t r = 0; r < ranks; ++r) {
    const auto host = topology.node(topology.gpu(r)).host;
    if (!host) return {};
    by_host[*host].push_back(Rank{static_cast<std::uint32_t>(r)});
  }
  std::vector<std::vector<Rank>> groups;
  for (auto& [host, members] : by_host) groups.push_back(std::move(members));
  return groups;
}

std::uint32_t default_channels(const Topology& topology, std::size_t ranks, Algorithm algorithm) {
  const auto hosts = host_groups(topology, ranks);
  std::uint32_t channels = 1;
  if (hosts.size() > 1) {
    // NICs of the first GPU's host: one channel per rail.
    const auto first_host = topology.node(topology.gpu(0)).host;
    std::uint32_t nics = 0;
    for (std::size_t v = 0; v < topology.node_count(); ++v) {
      const Node& node = topology.node(NodeId{static_cast<std::uint32_t>(v)});
      if (node.kind == NodeKind::nic && node.host == first_host) ++nics;
    }
    channels = std::max<std::uint32_t>(1, nics);
  }
  // NCCL's tree search starts a chain at each NIC and ncclTopoPostset duplicates every chain for the second tree
  // (src/graph/connect.cc): a channel pair per rail, or one pair without host structure.
  if (algorithm == Algorithm::tree) channels = 2 * channels;
  return channels;
}

std::vector<Rank> channel_ring_order(const std::vector<std::vector<Rank>>& hosts, std::size_t ranks,
                                     std::uint32_t channel, std::uint32_t channels) {
  std::vector<Rank> order;
  if (hosts.size() < 2) return order;  // rank order
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    const auto& members = hosts[h];
    const std::size_t g = members.size();
    // Entry points spread evenly over the host's GPUs, so that with fewer channels than GPUs (and GPUs sharing
    // NICs) the channels still leave through different NICs.
    const std::size_t entry = channel * std::max<std::size_t>(1, g / std::max<std::uint32_t>(1, channels));
    const std::size_t start = (h % 2 == 0 ? entry : entry + g - 1) % g;
    for (std::size_t i = 0; i < g; ++i) {
      const std::size_t local = h % 2 == 0 ? (start + i) % g : (start + g - i) % g;
      order.push_back(members[local]);
    }
  }
  SYNCSIM_INVARIANT(order.size() == ranks, "channel ring order lost a rank");
  return order;
}

std::vector<Algorithm> candidate_algorithms(CollectiveOp op, std::size_t ranks, bool has_hosts, bool any_algorithm) {
  std::vector<Algorithm> candidates{Algorithm::ring};
  const bool power_of_two = (ranks & (ranks - 1)) == 0;
  // NCCL runs Broadcast and Reduce on rings only (src/graph/tuning.cc, ncclTopoTuneModel); the tree can, for `best`.
  if (op == CollectiveOp::allreduce) candidates.push_back(Algorithm::tree);
  if (!any_algorithm) return candidates;
  if (op == CollectiveOp::broadcast || op == CollectiveOp::reduce) candidates.push_back(Algorithm::tree);
  if (op == CollectiveOp::allreduce || power_of_two) candidates.push_back(Algorithm::halving_doubling);
  if (op == CollectiveOp::allreduce && has_hosts) candidates.push_back(Algorithm::hierarchical);
  if (ranks <= kMaxDirectRanks) candidates.push_back(Algorithm::direct);
  return candidates;
}

CollectiveOutcome simulate_collective(Router& router, const CollectiveSpec& spec) {
  const Topology& topology = router.topology();
  const std::size_t ranks = spec.ranks == 0 ? topology.gpu_count() : spec.ranks;
  if (ranks < 2 || ranks > topology.gpu_count()) {
    throw InputError(fmt::format("expected 2 to {} ranks (the topology's GPUs), got {}", topology.gpu_count(), ranks));
  }
  if (spec.protocol && spec.latency != LatencySource::nccl) {
    throw InputError("a protocol (LL, LL128, Simple) needs the nccl latency model");
  }
  const auto hosts = host_groups(topology, ranks);
  std::vector<Algorithm> algorithms = spec.algorithm
                                          ? std::vector<Algorithm>{*spec.algorithm}
                                          : candidate_algorithms(spec.op, ranks, hosts.size() > 1, spec.any_algorithm);
  std::vector<Candidate> candidates;
  for (const Algorithm algorithm : algorithms) {
    if (spec.latency == LatencySource::calibrated) {
      if (spec.calibration == nullptr || spec.calibration->regimes.empty()) {
        throw InputError("the calibrated latency model needs a calibration (--calibration CAL.yaml)");
      }
      for (std::size_t r = 0; r < spec.calibration->regimes.size(); ++r) candidates.push_back({algorithm, {}, r});
    } else if (spec.latency == LatencySource::nccl) {
      for (const Protocol p : {Protocol::ll, Protocol::ll128, Protocol::simple}) {
        if (!spec.protocol || *spec.protocol == p) candidates.push_back({algorithm, p, {}});
      }
    } else {
      candidates.push_back({algorithm, {}, {}});
    }
  }
  std::optional<CollectiveOutcome> best;
  SimTime best_rank;  // what auto compares: the time, or a tree AllReduce's time as NCCL ranks it (tree_tuning.hpp)
  std::optional<SimTime> ring_busy;  // the fastest ring's busiest link (ring candidates run first)
  std::string last_refusal;
  std::optional<SimTimeOverflow> overflow;  // a candidate slower than the clock loses to any that fits
  for (const Candidate& candidate : candidates) {
    try {
      CollectiveOutcome outcome = run_candidate(router, spec, ranks, candidate, hosts);
      SimTime rank = outcome.time;
      if (candidate.algorithm == Algorithm::ring) {
        SimTime busy;
        for (const LinkTraffic& link : outcome.links) busy = std::max(busy, link.busy_time);
        ring_busy = ring_busy ? std::min(*ring_busy, busy) : busy;
      }
      if (candidate.algorithm == Algorithm::tree && spec.op == CollectiveOp::allreduce && candidate.protocol) {
        rank = tree_ranking_time(outcome.time, *candidate.protocol, spec.size, hosts.empty() ? ranks : hosts.size(),
                                 ranks, ring_busy.value_or(SimTime::zero()));
      }
      if (!best || rank < best_rank) {
        best = outcome;
        best_rank = rank;
      }
    } catch (const SimTimeOverflow& e) {
      if (spec.algorithm) throw;
      if (!overflow) overflow = e;  // the first: the ring's, a transfer too long for the clock
    } catch (const InputError& e) {
      // With an explicit algorithm its refusal is the answer; in auto mode, try the others.
      if (spec.algorithm) throw;
      last_refusal = e.what();
    }
  }
  // When none fits, the clock is the reason (the caller names the input behind it), else the last refusal.
  if (!best && overflow) throw *overflow;
  if (!best) throw InputError(fmt::format("no algorithm can run this collective here: {}", last_refusal));
  return *best;
}

}  // namespace syncsim
