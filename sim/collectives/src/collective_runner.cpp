#include "syncsim/collectives/collective_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "channel_copies.hpp"
#include "collective_groups.hpp"
#include "first_gpus.hpp"
#include "load_bound.hpp"
#include "pipeline_lockstep.hpp"
#include "syncsim/collectives/collnet_plan.hpp"
#include "syncsim/collectives/lockstep_runner.hpp"
#include "syncsim/collectives/nvls_plan.hpp"
#include "syncsim/collectives/transfer_cost.hpp"
#include "syncsim/collectives/tree_tuning.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/run_cost.hpp"
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

TransferCost cost_of(const CollectiveSpec& spec, const Candidate& candidate, std::size_t ranks) {
  if (candidate.regime) return spec.calibration->regimes[*candidate.regime];
  if (candidate.protocol) return nccl_cost(candidate.algorithm, *candidate.protocol, spec.compute_capability, ranks);
  return physical_cost();
}

// LL and LL128 on NVLink reach their refinement of NCCL's NVLink figure, not of the datasheet's rate
// (nccl_nvlink_figure): their NVLink efficiency scaled by figure / rate of the first GPU's NVLink.
void scale_low_latency_nvlink(TransferCost& cost, const Topology& topology, int compute_capability) {
  const std::optional<Bandwidth> figure = nccl_nvlink_figure(compute_capability);
  if (!figure || topology.gpu_count() == 0) return;
  for (const LinkId id : topology.out_links(topology.gpu(0))) {
    const Link& link = topology.link(id);
    if (link.kind != LinkKind::nvlink) continue;
    cost.efficiency[static_cast<std::size_t>(LinkKind::nvlink)] *=
        std::min(1.0, figure->bytes_per_second / link.bandwidth.bytes_per_second);
    return;
  }
}

// NCCL's architecture ceiling (nccl_busbw_cap): what NVLink delivers to NCCL per GPU and direction (on Hopper 18
// links of 20.6 GB/s, NCCL's SM90_NVLINK_BW, against the datasheet's 25). A ring moves size x bus_factor bytes per
// GPU and direction, so it bounds a ring's busbw; NVLS moves (1 + 1/m) x size (nvls_plan.hpp) at nvlsEfficiency.
SimTime capped(const CollectiveSpec& spec, std::size_t ranks, Algorithm algorithm, std::size_t domain_ranks,
               std::uint32_t channels, SimTime time) {
  if (!spec.busbw_cap || spec.latency != LatencySource::nccl || ranks < 2) return time;
  const double bytes = is_nvls(algorithm) ? nvls_nvlink_bytes(spec.size, domain_ranks) /
                                                nvls_efficiency(spec.compute_capability, channels)
                                          : static_cast<double>(spec.size.value) * bus_factor(spec.op, ranks);
  return std::max(time, SimTime::from_seconds(bytes / spec.busbw_cap->bytes_per_second));
}

// What the topology offers the in-network reductions: NVLink domains whose switch reduces, SHARP trees.
struct Reductions {
  std::vector<NvlinkDomain> domains;
  std::vector<SharpTree> sharp;
  std::vector<std::vector<Rank>> sharp_nodes;  // the nodes the trees' heads are on: the hosts, or every GPU alone
};

std::uint32_t candidate_channels(const CollectiveSpec& spec, const Topology& topology,
                                 const std::vector<std::size_t>& gpus, Algorithm algorithm,
                                 const Reductions& reductions) {
  if (spec.channels) return *spec.channels;
  if (is_nvls(algorithm)) return nvls_channels(spec.compute_capability, reductions.domains.size());
  // CollNetDirect drives every rail from one plan (a head per GPU); CollNetChain runs a chain per rail, as rings.
  if (algorithm == Algorithm::collnet_direct) return 1;
  if (algorithm == Algorithm::collnet_chain) return default_channels(topology, gpus, Algorithm::ring);
  return default_channels(topology, gpus, algorithm);
}

// Every send of `plan` from one of its first `ranks` ranks to another, in (sender, step) order.
std::vector<StepSend> rank_sends(const CollectivePlan& plan, std::size_t ranks) {
  std::vector<StepSend> sends;
  PlanStep step;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    for (std::uint32_t s = 0; s < plan.step_count(Rank{r}); ++s) {
      plan.step(Rank{r}, s, step);
      for (const PlanSend& send : step.sends) {
        if (send.dst.value() < ranks) sends.push_back({Rank{r}, s, send.dst, send.dst_step});
      }
    }
  }
  return sends;
}

// A candidate's channels, planned and ready to be bounded (load_bound.hpp) or simulated.
struct PlannedCandidate {
  ExecutorOptions options;
  std::uint32_t channels = 1;
  std::size_t ranks = 0;
  std::size_t domain_ranks = 0;
  std::vector<std::unique_ptr<CollectivePlan>> plans;
  // Channel k is plan k % channels of group k / channels.
  std::vector<const CollectivePlan*> channel_plans;
  std::vector<std::vector<NodeId>> channel_gpus;
  // A tree's pipeline pass, read while bounding it and handed to the run (mutable: bounding and running take the
  // candidate as planned, and this is only a cache of what they both compute).
  mutable collectives_detail::PipelineStart pipeline;
};

// `groups`: the GPU indices of each group running the collective (one group of the first `ranks` GPUs unless the
// spec names several); the plans are built once, from the first group's structure (hosts, reductions).
PlannedCandidate plan_candidate(Router& router, const CollectiveSpec& spec,
                                const std::vector<std::vector<std::size_t>>& groups, Candidate candidate,
                                const std::vector<std::vector<Rank>>& hosts, const Reductions& reductions) {
  const Topology& topology = router.topology();
  const std::size_t ranks = groups.front().size();
  const std::vector<NvlinkDomain>& domains = reductions.domains;
  std::uint32_t channels = candidate_channels(spec, topology, groups.front(), candidate.algorithm, reductions);
  // An all-to-all already has every rank send to every peer at once: channels would only cut each transfer in C.
  if (!spec.channels && spec.op == CollectiveOp::alltoall) channels = 1;
  if (channels == 0) throw InputError("channels must be at least 1");
  const std::size_t domain_ranks = domains.empty() ? ranks : domains.front().ranks.size();
  ExecutorOptions options;
  options.bulk = spec.bulk;
  options.symmetry = spec.symmetry;
  options.cost = cost_of(spec, candidate, ranks);
  if (is_nvls(candidate.algorithm) && candidate.protocol) {
    // NCCL's NVLS bandwidth per channel is nvlsEfficiency x (channels - 1) / channels of the link's share.
    if (channels < 2) throw InputError("NCCL's NVLS needs at least 2 channels");
    options.cost.efficiency.fill(nvls_efficiency(spec.compute_capability, channels));
  }
  options.record_steps = spec.record_steps;
  if (candidate.protocol && *candidate.protocol != Protocol::simple && spec.compute_capability) {
    scale_low_latency_nvlink(options.cost, topology, *spec.compute_capability);
  }

  // A calibrated regime's channel ramp (TransferCost::fill): below the fill size the collective costs the fill's.
  const Bytes size{std::max(spec.size.value, options.cost.fill.value)};
  std::vector<std::unique_ptr<CollectivePlan>> plans;
  for (std::uint32_t c = 0; c < channels; ++c) {
    PlanContext context;
    context.hosts = hosts;
    context.root = spec.root;
    context.channel = c;
    const Bytes bytes = channel_bytes(size, c, channels);
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
    if (is_nvls(candidate.algorithm)) {
      context.nvlink_domains = domains;
      context.pipeline_slices = spec.pipeline_slices ? *spec.pipeline_slices : nvls_slices(bytes);
    }
    if (is_collnet(candidate.algorithm)) {
      context.sharp_trees = reductions.sharp;
      context.hosts = reductions.sharp_nodes;
      context.pipeline_slices = spec.pipeline_slices ? *spec.pipeline_slices : collnet_slices(bytes);
    }
    if (candidate.algorithm == Algorithm::ring) context.ring_order = channel_ring_order(hosts, ranks, c, channels);
    plans.push_back(make_plan(candidate.algorithm, spec.op, ranks, bytes, context));
  }

  PlannedCandidate planned{options, channels, ranks, domain_ranks, std::move(plans), {}, {}, nullptr};
  for (const std::vector<std::size_t>& group : groups) {
    std::vector<NodeId> gpus;
    for (const std::size_t g : group) gpus.push_back(topology.gpu(g));
    for (const auto& plan : planned.plans) {
      planned.channel_plans.push_back(plan.get());
      planned.channel_gpus.push_back(gpus);
    }
  }
  return planned;
}

// What `auto` compares: the time, or a tree AllReduce's time as NCCL ranks it (tree_tuning.hpp). Both are
// non-decreasing in the time, so the ranking of a lower bound bounds the ranking.
SimTime ranking_time(const CollectiveSpec& spec, const Candidate& candidate, SimTime time, std::size_t nodes,
                     std::size_t ranks, std::optional<SimTime> ring_busy) {
  if (candidate.algorithm != Algorithm::tree || spec.op != CollectiveOp::allreduce || !candidate.protocol) {
    return time;
  }
  return tree_ranking_time(time, *candidate.protocol, spec.size, nodes, ranks, ring_busy.value_or(SimTime::zero()));
}

// The least time the candidate can take, launch included: its busiest link's wire bytes at the link's rate.
SimTime candidate_bound(Router& router, const CollectiveSpec& spec, const Candidate& candidate,
                        const PlannedCandidate& planned) {
  const SimTime load = busiest_link_bound(router, planned.channel_plans, planned.channel_gpus, planned.options.cost);
  return capped(spec, planned.ranks, candidate.algorithm, planned.domain_ranks, planned.channels, load) +
         planned.options.cost.launch;
}

// A tighter bound for a tree, at the cost of one pass over its transfers: its steps with every transfer alone on
// its route (pipeline_lockstep.hpp). Zero for other candidates.
SimTime tree_bound(Router& router, const CollectiveSpec& spec, const Candidate& candidate,
                   const PlannedCandidate& planned) {
  if (candidate.algorithm != Algorithm::tree) return SimTime::zero();
  const std::optional<SimTime> alone = collectives_detail::alone_bound(
      router, planned.channel_plans, planned.channel_gpus, planned.options, &planned.pipeline);
  if (!alone) return SimTime::zero();
  return capped(spec, planned.ranks, candidate.algorithm, planned.domain_ranks, planned.channels, *alone) +
         planned.options.cost.launch;
}

CollectiveOutcome run_candidate(Router& router, const CollectiveSpec& spec, Candidate candidate,
                                const PlannedCandidate& planned) {
  const Topology& topology = router.topology();
  const std::size_t ranks = planned.ranks;
  const std::size_t domain_ranks = planned.domain_ranks;
  const std::uint32_t channels = planned.channels;
  ExecutorOptions options = planned.options;
  const std::vector<const CollectivePlan*>& channel_plans = planned.channel_plans;
  const std::vector<std::vector<NodeId>>& channel_gpus = planned.channel_gpus;
  CollectiveOutcome outcome;
  outcome.algorithm = candidate.algorithm;
  outcome.protocol = candidate.protocol;
  outcome.regime = candidate.regime;
  outcome.channels = channels;

  // Several channels share links (a DGX GPU's NVLink carries most of them), which breaks the executors' bulk
  // claims and leaves them flow by flow; lockstep times each distinct combined step once (lockstep_runner.hpp).
  // One channel keeps the executor, whose bulk and per-flow paths are exact.
  std::size_t transfers = 0;  // one send per rank and step in a uniform plan
  for (const CollectivePlan* plan : channel_plans) {
    for (std::size_t r = 0; r < ranks; ++r) transfers += plan->step_count(Rank{static_cast<std::uint32_t>(r)});
  }
  const bool lockstep = spec.bulk && channel_plans.size() > 1 && !spec.record_steps;
  // Channels that are copies of one another run as one, their wire bytes k-fold (channel_copies.hpp).
  const collectives_detail::ChannelCopies copies = collectives_detail::channel_copies(planned.plans);
  ExecutorOptions copied = options;
  for (double& efficiency : copied.cost.efficiency) efficiency /= copies.copies;
  std::vector<const CollectivePlan*> copy_plans;
  std::vector<std::vector<NodeId>> copy_gpus;
  for (std::size_t k = 0; copies.copies > 1 && k < channel_plans.size(); ++k) {
    if (!std::binary_search(copies.kept.begin(), copies.kept.end(), k % channels)) continue;
    copy_plans.push_back(channel_plans[k]);
    copy_gpus.push_back(channel_gpus[k]);
  }
  // Without copies, every channel as planned (no copy of a frontier layout's GPU lists).
  const std::vector<const CollectivePlan*>& kept_plans = copies.copies > 1 ? copy_plans : channel_plans;
  const std::vector<std::vector<NodeId>>& kept_gpus = copies.copies > 1 ? copy_gpus : channel_gpus;
  std::optional<LockstepTiming> fast;
  if (lockstep && transfers >= spec.lockstep_min_transfers) {
    fast = time_lockstep(router, kept_plans, kept_gpus, copied, copies.copies);
    if (fast) fast->stats = collectives_detail::for_all_copies(fast->stats, copies.copies);
  }
  // Trees pass their slices along an acyclic graph (pipeline_lockstep.hpp).
  if (!fast && lockstep && transfers >= spec.lockstep_min_transfers) {
    fast = collectives_detail::time_pipeline(router, channel_plans, channel_gpus, options, std::move(planned.pipeline));
  }
  if (fast) {
    outcome.time = capped(spec, ranks, candidate.algorithm, domain_ranks, channels, fast->time) + options.cost.launch;
    outcome.stats = fast->stats;
    outcome.links = std::move(fast->links);
    return outcome;
  }

  Simulator sim;
  FlowModel flows(sim, topology);
  if (spec.flow_work != nullptr) flows.count_work_in(*spec.flow_work);
  std::vector<std::unique_ptr<CollectiveExecutor>> executors;
  for (std::size_t k = 0; k < kept_plans.size(); ++k) {
    executors.push_back(std::make_unique<CollectiveExecutor>(sim, flows, router, *kept_plans[k], kept_gpus[k], copied));
    copied.record_steps = false;  // channel 0's steps are the outcome's
  }
  for (auto& executor : executors) executor->start();
  sim.run();

  SimTime last;
  for (const auto& executor : executors) {
    SYNCSIM_INVARIANT(executor->done(), "a channel ended with ranks still waiting (deadlock in the plan)");
    last = std::max(last, executor->finish_time());
    outcome.stats += collectives_detail::for_all_copies(executor->stats(), copies.copies);
  }
  outcome.time = capped(spec, ranks, candidate.algorithm, domain_ranks, channels, last) + options.cost.launch;
  outcome.links = flows.traffic();
  if (spec.record_steps) {
    // The ranks' own streams; a plan's further participants (second streams, switches) are not ranks.
    const auto& steps = executors.front()->step_starts();
    outcome.step_starts.assign(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(ranks));
    outcome.step_sends = rank_sends(*channel_plans.front(), ranks);
  }
  return outcome;
}

// Every rank its own node: no host structure (each GPU is a node, as trees treat it) or hosts of one GPU each.
bool each_gpu_its_own_node(const std::vector<std::vector<Rank>>& hosts) {
  return std::all_of(hosts.begin(), hosts.end(), [](const std::vector<Rank>& host) { return host.size() == 1; });
}

}  // namespace

std::vector<Algorithm> candidate_algorithms(CollectiveOp op, std::size_t ranks, bool has_hosts, bool any_algorithm,
                                            std::size_t nvlink_domains, bool one_gpu_per_node, SharpCandidates sharp) {
  if (op == CollectiveOp::alltoall) {
    // NCCL has one way, point-to-point to every peer (direct_plan.hpp).
    if (any_algorithm && has_hosts) return {Algorithm::direct, Algorithm::hierarchical};
    return {Algorithm::direct};
  }
  std::vector<Algorithm> candidates{Algorithm::ring};
  const bool power_of_two = (ranks & (ranks - 1)) == 0;
  // NCCL runs Broadcast and Reduce on rings only (src/graph/tuning.cc, ncclTopoTuneModel); the tree can, for `best`.
  if (op == CollectiveOp::allreduce) candidates.push_back(Algorithm::tree);
  if (op == CollectiveOp::allreduce && nvlink_domains > 0) {
    candidates.push_back(nvlink_domains == 1 ? Algorithm::nvls : Algorithm::nvls_tree);
  }
  if (op == CollectiveOp::allreduce && sharp == SharpCandidates::direct_and_chain) {
    candidates.push_back(Algorithm::collnet_direct);
  }
  if (op == CollectiveOp::allreduce && sharp != SharpCandidates::none) candidates.push_back(Algorithm::collnet_chain);
  // PAT only at one GPU per node (tuning.cc, ncclPatEnable); `best` tries it anywhere.
  const bool gathers = op == CollectiveOp::reduce_scatter || op == CollectiveOp::all_gather;
  if (gathers && (one_gpu_per_node || any_algorithm)) candidates.push_back(Algorithm::pat);
  if (!any_algorithm) return candidates;
  if (op == CollectiveOp::broadcast || op == CollectiveOp::reduce) candidates.push_back(Algorithm::tree);
  if (op == CollectiveOp::allreduce || power_of_two) candidates.push_back(Algorithm::halving_doubling);
  if (op == CollectiveOp::allreduce && has_hosts) candidates.push_back(Algorithm::hierarchical);
  if (ranks <= kMaxDirectRanks) candidates.push_back(Algorithm::direct);
  return candidates;
}

CollectiveOutcome collectives_detail::simulate_one_size(Router& router, const CollectiveSpec& spec) {
  const Topology& topology = router.topology();
  const std::vector<std::vector<std::size_t>> groups =
      spec.groups.empty()
          ? std::vector<std::vector<std::size_t>>{first_gpus(spec.ranks == 0 ? topology.gpu_count() : spec.ranks)}
          : collectives_detail::checked_groups(spec, topology.gpu_count());
  if (groups.size() > 1) {
    const auto prints = collectives_detail::footprints(router, groups);
    if (prints->components.size() > 1) return collectives_detail::simulate_components(router, spec, groups, *prints);
  }
  if (groups.size() > 1 && collectives_detail::chooses(spec)) {
    return collectives_detail::simulate_as_first_chooses(router, spec);
  }
  const std::size_t ranks = groups.front().size();
  if (ranks < 2 || ranks > topology.gpu_count()) {
    throw InputError(fmt::format("expected 2 to {} ranks (the topology's GPUs), got {}", topology.gpu_count(), ranks));
  }
  if (spec.protocol && spec.latency != LatencySource::nccl) {
    throw InputError("a protocol (LL, LL128, Simple) needs the nccl latency model");
  }
  const auto hosts = nccl_node_groups(topology, groups.front());
  Reductions reductions{reducing_nvlink_domains(topology, groups.front(), spec.compute_capability), {}, {}};
  const bool wants_sharp =
      (spec.algorithm ? is_collnet(*spec.algorithm) : spec.op == CollectiveOp::allreduce) && groups.size() == 1;
  if (wants_sharp) {
    // Without host structure every GPU is a node with its own NIC, as NCCL sees one GPU per node.
    reductions.sharp_nodes = hosts;
    if (hosts.empty()) {
      for (std::size_t r = 0; r < ranks; ++r) reductions.sharp_nodes.push_back({Rank{static_cast<std::uint32_t>(r)}});
    }
    reductions.sharp = sharp_trees(router, reductions.sharp_nodes);
  }
  // NCCL runs CollNetDirect on NVSwitch nodes only (src/graph/tuning.cc, "nvsCount == 0").
  const bool nvswitch_nodes =
      !hosts.empty() && std::all_of(hosts.begin(), hosts.end(), [&](const std::vector<Rank>& node) {
        return node.size() > 1 && nvlink_switch_of(topology, topology.gpu(node.front().value()));
      });
  std::vector<Algorithm> algorithms =
      spec.algorithm ? std::vector<Algorithm>{*spec.algorithm}
                     : candidate_algorithms(spec.op, ranks, hosts.size() > 1, spec.any_algorithm,
                                            reductions.domains.size(), each_gpu_its_own_node(hosts),
                                            reductions.sharp.empty() ? SharpCandidates::none
                                            : nvswitch_nodes         ? SharpCandidates::direct_and_chain
                                                                     : SharpCandidates::chain);
  // The link classes the collective crosses, for a calibration's size windows (calibrated_regimes).
  std::array<bool, 3> crossed{};
  if (spec.calibration && !spec.calibration->windows.empty()) {
    for (std::size_t r = 1; r < ranks; ++r) {  // a route per rank: only for a calibration with windows
      const std::vector<std::size_t>& gpus = groups.front();
      crossed[static_cast<std::size_t>(classify(topology, router.gpu_route(gpus[0], gpus[r])))] = true;
    }
  }
  std::vector<Candidate> candidates;
  for (const Algorithm algorithm : algorithms) {
    if (spec.latency == LatencySource::calibrated) {
      if (spec.calibration == nullptr || spec.calibration->regimes.empty()) {
        throw InputError("the calibrated latency model needs a calibration (--calibration CAL.yaml)");
      }
      for (const std::size_t r : calibrated_regimes(*spec.calibration, spec.size, crossed)) {
        candidates.push_back({algorithm, {}, r});
      }
    } else if (spec.latency == LatencySource::nccl) {
      for (const Protocol p : {Protocol::ll, Protocol::ll128, Protocol::simple}) {
        // NVLS runs Simple only; NCCL's point-to-point transfers (AllToAll's) use LL or Simple, never LL128
        // (src/enqueue.cc, NCCL 2.30: LL up to P2P_LL_THRESHOLD bytes per channel, else Simple). Other protocols
        // are not candidates unless asked for (and then refused).
        const bool p2p_protocol = spec.op != CollectiveOp::alltoall || p != Protocol::ll128;
        const bool asked = spec.protocol && *spec.protocol == p;
        if (asked || (!spec.protocol && runs_protocol(algorithm, p) && p2p_protocol)) {
          candidates.push_back({algorithm, p, {}});
        }
      }
    } else {
      candidates.push_back({algorithm, {}, {}});
    }
  }
  // Rings run first: a tree's ranking reads their busiest link. Every other candidate is bounded before it is
  // simulated (load_bound.hpp) and skipped when even its bound ranks behind the best so far, so it could not have
  // won; LL goes last, since on a large message its bound (four wire bytes per byte) usually loses to LL128's
  // result. Equal rankings go to the earlier candidate, as before the reordering.
  std::vector<std::size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const auto others = std::stable_partition(order.begin(), order.end(),
                                            [&](std::size_t i) { return candidates[i].algorithm == Algorithm::ring; });
  std::stable_partition(others, order.end(), [&](std::size_t i) { return candidates[i].protocol != Protocol::ll; });
  const std::size_t nodes = hosts.empty() ? ranks : hosts.size();
  std::optional<CollectiveOutcome> best;
  std::size_t best_index = 0;
  SimTime best_rank;                 // what auto compares (ranking_time)
  std::optional<SimTime> ring_busy;  // the fastest ring's busiest link
  std::optional<std::size_t> refusal_index;
  std::string refusal;                      // the last candidate's refusal, in the candidates' order
  std::optional<SimTimeOverflow> overflow;  // a candidate slower than the clock loses to any that fits
  for (const std::size_t i : order) {
    const Candidate& candidate = candidates[i];
    try {
      const PlannedCandidate planned = plan_candidate(router, spec, groups, candidate, hosts, reductions);
      if (candidates.size() == 1) {  // one algorithm: large groups split by the routes it sends on
        if (auto split = collectives_detail::simulate_split_by_plan(router, spec, groups, planned.plans)) return *split;
      }
      const auto ranks_behind = [&](SimTime bound) {
        return ranking_time(spec, candidate, bound, nodes, ranks, ring_busy) > best_rank;
      };
      // The cheaper bound first: it alone skips most losers (LL on a large message).
      if (best && candidate.algorithm != Algorithm::ring &&
          (ranks_behind(candidate_bound(router, spec, candidate, planned)) ||
           ranks_behind(tree_bound(router, spec, candidate, planned)))) {
        continue;
      }
      CollectiveOutcome outcome = run_candidate(router, spec, candidate, planned);
      if (candidate.algorithm == Algorithm::ring) {
        SimTime busy;
        for (const LinkTraffic& link : outcome.links) busy = std::max(busy, link.busy_time);
        ring_busy = ring_busy ? std::min(*ring_busy, busy) : busy;
      }
      const SimTime rank = ranking_time(spec, candidate, outcome.time, nodes, ranks, ring_busy);
      if (!best || rank < best_rank || (rank == best_rank && i < best_index)) {
        best = std::move(outcome);
        best_index = i;
        best_rank = rank;
      }
    } catch (const SimTimeOverflow& e) {
      if (spec.algorithm) throw;
      if (!overflow) overflow = e;  // the first: the ring's, a transfer too long for the clock
    } catch (const InputError& e) {
      // With an explicit algorithm its refusal is the answer; in auto mode, try the others. A run past its budget
      // says which collective it was.
      const auto* cost = dynamic_cast<const RunCostExceeded*>(&e);
      if (cost && spec.algorithm) {
        throw RunCostExceeded(fmt::format("{} {} of {} over {} ranks", to_string(candidate.algorithm),
                                          to_string(spec.op), format_bytes(spec.size), ranks),
                              *cost);
      }
      if (spec.algorithm) throw;
      if (!refusal_index || i > *refusal_index) {
        refusal_index = i;
        refusal = e.what();
      }
    }
  }
  // When none fits, the clock is the reason (the caller names the input behind it), else the last refusal.
  if (!best && overflow) throw *overflow;
  if (!best) throw InputError(fmt::format("no algorithm can run this collective here: {}", refusal));
  return *best;
}

}  // namespace syncsim
