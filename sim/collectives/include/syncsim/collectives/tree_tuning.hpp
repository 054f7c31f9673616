#pragma once
// What NCCL's tuner and enqueue do to the tree beyond its shape: the chunk a channel pipelines, per protocol, and
// the tree correction factor that `auto` ranks the tree with.
//
// Chunks (NCCL 2.30 src/enqueue.cc, calcCollChunking; buffer sizes from src/init.cc and src/include/device.h): a
// tree step moves one buffer step, buffSize / NCCL_STEPS (8), with chunkSteps = 1 for trees:
//   Simple  4 MiB / 8                           = 512 KiB
//   LL      (8 lines x 512 threads x 8 x 16 B) / 8 / 2 (half of each line is flags)        = 32 KiB
//   LL128   (120 x 640 threads x 8 x 8 B) / 8 x 15/16 (one 8-byte flag in 16)            = 576,000 B, halved
//           while bytes/(channels x chunk) < s x 64/ppn (to 128 KiB) and < s x 16/ppn (to 32 KiB), where
//           s = 1 + log2(nodes) + 0.1 ppn and ppn = ranks per node.
// A simulated channel moves ceil(bytes / chunk) slices, at most kMaxTreeSlices: each slice is a step of every
// stream, and beyond 16 the pipeline's fill, (2D - 1)/k of S/B (tree_plan.hpp), is already small.
//
// Ranking (NCCL 2.30 src/graph/tuning.cc: treeCorrectionFactor, ncclTopoGetAlgoTime, ncclTopoTuneModel). `auto`
// predicts what NCCL would run, so it ranks the tree as NCCL's tuner sees it, in two ways, and the winner reports
// its simulated time (applied to every `--algo tree` run, tuner heuristics would count twice what the simulation
// already pays: pipeline fill, shared NICs):
//   - NCCL multiplies a tree AllReduce's modelled bandwidth by a factor f <= 1 per protocol and power-of-two size
//     from 64 B to 256 MiB, because "trees are not perfectly sticking to the model for medium sizes"; here f
//     divides the bandwidth part of the simulated time, as NCCL's divides its bandwidth term.
//   - NCCL's model never gives the tree more bandwidth than the ring: a tree channel's bus bandwidth is 0.92 of the
//     same link's, and algbw = busbw / 2 against the ring's n / (2(n-1)), so the tree's bandwidth time is at least
//     R = (n / (2(n-1))) / (0.5 x 0.92) times the ring's. The simulation can find the tree faster (on 2 nodes each
//     node sends S over the network, a ring 2(n-1)/n S), but NCCL would still run the ring there.
//   T_rank = T_lat + max(T - T_lat, R x B_ring) / f
//   T_lat  = NCCL's tree latency, its own formula from the nccl cost: launch + 2 ((ppn - 1) NVLink step latency +
//            log2(nodes) network step latency)
//   B_ring = the ring's bandwidth time: the busiest link's busy time in the fastest ring (0 when none ran)
#include <cstdint>

#include "syncsim/collectives/latency_model.hpp"

namespace syncsim {

inline constexpr std::uint32_t kMaxTreeSlices = 16;

// NCCL's tree chunk for a protocol (nullopt: the Simple chunk), for a collective of `bytes` over `channels`
// channels on `nodes` nodes of `ranks` ranks in all.
std::int64_t tree_chunk_bytes(std::optional<Protocol> protocol, Bytes bytes, std::uint32_t channels, std::size_t nodes,
                              std::size_t ranks);
// Slices for one channel of `channel_bytes`: ceil(channel_bytes / chunk), 1 to kMaxTreeSlices.
std::uint32_t tree_slices(Bytes channel_bytes, std::int64_t chunk_bytes);

// treeCorrectionFactor[protocol][log2(bytes / 64)]; 1 outside 64 B .. 256 MiB.
double tree_correction_factor(Protocol protocol, Bytes bytes);
// T_rank above, for a tree AllReduce of `bytes` simulated in `time` under NCCL's `protocol`.
SimTime tree_ranking_time(SimTime time, Protocol protocol, Bytes bytes, std::size_t nodes, std::size_t ranks,
                          SimTime ring_bandwidth_time = SimTime::zero());

}  // namespace syncsim
