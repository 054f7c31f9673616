#pragma once
// Simulating one collective as NCCL runs it: split over channels, each channel a plan of its own running at the
// same time on the same network, with the algorithm and protocol either given or picked as NCCL's tuner does —
// the cheapest for this size, except that here "cheapest" comes from simulating each candidate, not from a
// formula (a candidate whose busiest-link bound already ranks behind the best one simulated is skipped: it could
// not have won; docs/collectives.md, "Auto").
//
//   Router router(topology);
//   CollectiveSpec spec{.op = CollectiveOp::allreduce, .size = Bytes{1 << 30}, .ranks = 16};
//   CollectiveOutcome out = simulate_collective(router, spec);   // out.algorithm, out.protocol, out.time
//
// Channels. NCCL runs several rings (or trees) at once so that a node drives all its NICs. Channel c's ring visits
// each host's GPUs as a "snake" that enters and leaves every host on one rail: hosts with even index go up from
// the channel's entry GPU e, odd ones go down from e-1, so every inter-host hop joins two NICs of the same rail
// and C channels spread over C rails. Without host structure every channel uses rank order.
//
// Execution. One channel runs on a CollectiveExecutor (exact: bulk steps where its links are its own, flow by
// flow otherwise). Several channels whose steps are all uniform and that move at least
// spec.lockstep_min_transfers transfers run in lockstep (lockstep_runner.hpp): each distinct combined step is
// simulated once; spec.bulk = false forces the executors, flow by flow.
#include <optional>
#include <vector>

#include "syncsim/collectives/algorithm.hpp"
#include "syncsim/collectives/collective_executor.hpp"
#include "syncsim/collectives/latency_model.hpp"

namespace syncsim {

class WorkBudget;  // syncsim/core/run_cost.hpp

struct CollectiveSpec {
  CollectiveOp op = CollectiveOp::allreduce;
  Bytes size;
  std::size_t ranks = 0;  // the first `ranks` GPUs of the topology; 0 means all
  // Several groups at once (a parallel layout's tensor or data-parallel groups): when not empty, the collective
  // runs in every group at the same time, group g's rank r on GPU index groups[g][r], all sharing the network, and
  // takes as long as the slowest group (`ranks` must then be 0 or the groups' size). The groups must be disjoint and
  // of one size; the algorithm, protocol, channels and host structure are the first group's (a layout's groups are
  // alike; left to auto, the algorithm and protocol are those the first group gets alone, as NCCL tunes each
  // communicator by itself), and the SHARP trees of CollNet are searched only for a single group. Groups whose
  // member-to-member routes share no link run one by one, exactly.
  std::vector<std::vector<std::size_t>> groups;
  std::optional<Algorithm> algorithm;     // nullopt: auto (see candidate_algorithms)
  bool any_algorithm = false;             // auto searches every algorithm, not only NCCL's
  std::optional<Protocol> protocol;       // nullopt: auto (only with the nccl latency source)
  std::optional<std::uint32_t> channels;  // nullopt: default_channels()
  LatencySource latency = LatencySource::physical;
  // With the nccl latency source: NCCL's bus-bandwidth ceiling for the GPUs' architecture (nccl_busbw_cap); every
  // candidate's time is at least size x bus_factor / cap (plus the launch overhead).
  std::optional<Bandwidth> busbw_cap;
  // The GPUs' compute capability (90 = Hopper), where known: NVSwitches with nvls=auto reduce from 90 on, and NVLS's
  // efficiency depends on it (latency_model.hpp). nullopt: unknown, so auto switches do not reduce.
  std::optional<int> compute_capability;
  const CalibratedModel* calibration = nullptr;  // required with LatencySource::calibrated; must outlive the call
  Rank root{0};
  std::optional<std::uint32_t> pipeline_slices;  // nullopt: auto (512 KiB chain slices, NCCL's tree chunks)
  bool bulk = true;
  // Ranks in identical states computed once per symmetry class (ExecutorOptions::symmetry); off only to prove that
  // the results do not change.
  bool symmetry = true;
  // Several uniform channels run in lockstep (fast, approximate: within a few % of the per-flow result on large
  // clusters, up to ~17% slower on 2-16 DGX nodes in the few-MB range) only when they have at least this many
  // transfers in all; smaller collectives run on the exact executors, which are fast enough there. 0: always.
  // Trees take the pipelined path instead (pipeline_lockstep.hpp; up to ~+22% on LL128).
  std::size_t lockstep_min_transfers = 1'000'000;
  // Keep channel 0's per-rank step start times in the outcome (for traces; runs on the executors, never in
  // lockstep, so meant for small collectives).
  bool record_steps = false;
  // The run-cost budget its flow models count against (syncsim/core/run_cost.hpp), shared by the collectives of one
  // command (the sizes of `syncsim collective`); null: each collective its own.
  WorkBudget* flow_work = nullptr;
};

// One send of a plan between two of its ranks: rank `src`'s step `step` feeds rank `dst`'s step `dst_step`.
struct StepSend {
  Rank src;
  std::uint32_t step = 0;
  Rank dst;
  std::uint32_t dst_step = 0;
};

struct CollectiveOutcome {
  SimTime time;  // launch overhead included
  Algorithm algorithm = Algorithm::ring;
  std::optional<Protocol> protocol;   // set with the nccl latency source
  std::optional<std::size_t> regime;  // set with a calibrated model: the index of the regime that won
  std::uint32_t channels = 1;
  ExecutorStats stats;  // summed over channels
  // Every link that carried bytes during the collective (all channels), sorted by link id: bytes on the wire
  // (payload divided by the protocol's efficiency) and the time the link had at least one transfer pushing.
  std::vector<LinkTraffic> links;
  // With spec.record_steps: channel 0's steps, per rank: when each step began and, last, when the rank finished,
  // relative to the collective's start (the launch overhead is not in them). Empty otherwise.
  std::vector<std::vector<SimTime>> step_starts;
  // With spec.record_steps: channel 0's sends between ranks (not those to or from a plan's further participants),
  // by sender and step: who feeds whom, for a trace's flow arrows. Empty otherwise.
  std::vector<StepSend> step_sends;
};

// Ranks grouped by host, from the topology's GPU host ids; empty when some GPU has none.
std::vector<std::vector<Rank>> host_groups(const Topology& topology, std::size_t ranks);
// The same for ranks on GPUs `gpus` (rank r on GPU index gpus[r]); so are the overloads below.
std::vector<std::vector<Rank>> host_groups(const Topology& topology, const std::vector<std::size_t>& gpus);
// NCCL's nodes: the hosts, except that hosts whose GPUs share one NVSwitch (the trays of a multi-node NVLink
// domain such as a GB200 NVL72 rack) are one node, as NCCL fuses an MNNVL clique into one (src/graph/topo.cc).
// Rings, trees and PAT are built over these nodes; empty when some GPU has no host.
std::vector<std::vector<Rank>> nccl_node_groups(const Topology& topology, std::size_t ranks);
std::vector<std::vector<Rank>> nccl_node_groups(const Topology& topology, const std::vector<std::size_t>& gpus);
// One channel per rail (NICs of the first of nccl_node_groups) when there are several nodes; otherwise 1; trees twice
// that (a pair of channels runs NCCL's two trees on one chain); at most 32, as many as NCCL's searches look for.
std::uint32_t default_channels(const Topology& topology, std::size_t ranks, Algorithm algorithm);
std::uint32_t default_channels(const Topology& topology, const std::vector<std::size_t>& gpus, Algorithm algorithm);
// Channel c's ring order (see above); with C channels on hosts of g GPUs, channel c enters each host at local GPU
// c * (g / C), so the channels spread over the rails.
std::vector<Rank> channel_ring_order(const std::vector<std::vector<Rank>>& hosts, std::size_t ranks,
                                     std::uint32_t channel, std::uint32_t channels);
// The bytes channel c of C moves of a collective of `size`: those between the buffer's split points c·S/C and
// (c+1)·S/C. The channels differ by at most a byte and their sizes repeat with the period of S mod C (every 2 or 4
// channels for a size in whole floats), so channels alike on the rails keep equal sizes and are timed once.
Bytes channel_bytes(Bytes size, std::uint32_t channel, std::uint32_t channels);
// What auto tries. By default NCCL's own choices — ring and tree for AllReduce; ring for Broadcast, Reduce,
// ReduceScatter and AllGather; PAT too for ReduceScatter and AllGather at one GPU per node (`one_gpu_per_node`); for
// AllReduce on NVSwitches that reduce (`nvlink_domains`, reducing_nvlink_domains in nvls_plan.hpp) NVLS inside one
// domain, NVLSTree across several — and for AllReduce over switches that reduce (`sharp`, the SHARP trees of
// collnet_plan.hpp) CollNetChain, and CollNetDirect where the nodes have NVSwitches, so that a prediction says what
// NCCL would do. With `any_algorithm` also the
// tree for Broadcast and Reduce, halving-doubling, hierarchical and (on small groups) direct: what the best
// available algorithm would do. AllToAll: direct (NCCL's only way), and hierarchical too with `any_algorithm` on
// hosts; it runs on one channel unless spec.channels says otherwise.
enum class SharpCandidates { none, chain, direct_and_chain };
std::vector<Algorithm> candidate_algorithms(CollectiveOp op, std::size_t ranks, bool has_hosts,
                                            bool any_algorithm = false, std::size_t nvlink_domains = 0,
                                            bool one_gpu_per_node = false,
                                            SharpCandidates sharp = SharpCandidates::none);

// The least time NCCL's bus-bandwidth ceiling (spec.busbw_cap) leaves any candidate of spec's collective over groups
// of `ranks`, whatever the algorithm, protocol and channels: zero without a ceiling or with another latency source.
SimTime busbw_floor(const CollectiveSpec& spec, std::size_t ranks);

// Throws InputError when a given algorithm cannot run the operation on these ranks (with the reason).
CollectiveOutcome simulate_collective(Router& router, const CollectiveSpec& spec);

}  // namespace syncsim
