#pragma once
// The scale-out fabric of `dgx`: how many leaves, spines and cores a cluster needs at a switch radix, and the
// switches and links that join the rails' leaves. dgx.cpp adds the servers (GPUs, NVSwitch, NICs) and hangs NIC r of
// each node on the leaf this gives it.
//
// Two shapes, the smaller whenever it fits the radix:
//
//   shared spines (two tiers): every spine joins every leaf of every rail, one port each, so a spine uses
//     rails x leaves-per-rail ports. Traffic between rails crosses a spine. This is a DGX SuperPOD scalable unit
//     (NVIDIA's reference architecture: 32 nodes, a leaf per rail, spines shared by the rails) and the shape syncsim
//     always built; it is kept, switch for switch, wherever rails x leaves-per-rail <= radix.
//
//   rail planes (two or three tiers): each rail is a fabric of its own (rail r's leaves, spines and cores are
//     separate switches), so a plane holds one NIC port per node: 100,000 GPUs on 8 rails are 8 planes of 12,500
//     ports. A plane is built of pods, a pod being up to radix/2 leaves and the spines above them (a spine gives
//     radix/2 ports to the pod's leaves and radix/2 to the cores, so a fabric grows by whole pods, as Meta's AI zones
//     (Gangidi et al., SIGCOMM 2024: ~3K GPUs per zone, zones joined by an aggregation layer) and Alibaba HPN's pods
//     (Qian et al., SIGCOMM 2024: 15K GPUs per pod) do). One pod needs no core tier; several pods are joined by cores,
//     core group s (one per spine position) taking spine s of every pod, one port per pod: a k-ary fat tree per rail
//     (Al-Fares et al., SIGCOMM 2008). Traffic between rails never crosses the network: it moves over NVLink to the
//     GPU on the destination's rail first (NCCL's PXN, router.hpp).
//
//       core(s, 0..c/m-1)        core(s', ..)            one group per spine position; m ports per pod
//          |    \                   |
//       spine s of pod 0 .. spine s of pod P-1           u spines per pod; radix/2 down, c up (m to each core)
//        / | \ .
//     leaf .. leaf (radix/2 per pod)                     nodes_per_leaf down, u up
//
// Oversubscription: `oversub` at the leaf (u = ceil(nodes_per_leaf / oversub) uplinks, one to each of the pod's
// spines, as always), `core_oversub` at the spine (c = ceil((radix/2) / core_oversub) uplinks, one to each core of
// its group: HPN oversubscribes its core 15:1, Meta its aggregation layer). Every link runs at nic_bw. A spine sends
// m parallel links to each core of its group, m the largest divisor of c with m x pods <= radix: a few pods then
// need c/m full cores per group, not c cores with a port per pod each (2 pods at radix 64: one 64-port core per
// group, not 32 cores of 2 ports).
//
// A plane whose pods outnumber the radix cannot be joined by one core tier: the spec is refused, naming the tier
// and the smallest radix that builds it.
#include <cstdint>
#include <vector>

#include "../spec_params.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim::topology_detail {

struct DgxFabricShape {
  std::int64_t nodes = 0;
  std::int64_t rails = 0;
  std::int64_t radix = 0;
  bool shared_spines = true;  // the two-tier shape with spines shared by all rails
  std::int64_t nodes_per_leaf = 0;
  std::int64_t leaves_per_rail = 0;
  std::int64_t leaf_uplinks = 0;    // u: spines per pod (per plane), or the shared spines
  std::int64_t leaves_per_pod = 0;  // rail planes only
  std::int64_t pods = 0;            // rail planes only; more than one means a core tier
  std::int64_t spine_uplinks = 0;   // c, when there is a core tier
  std::int64_t links_per_core = 0;  // m: a spine's parallel links to each core of its group (c / m cores a group)

  bool has_cores() const { return !shared_spines && pods > 1; }
};

// The shape `params` asks for; a spec that overflows the radix fails naming the tier and a radix that would do.
DgxFabricShape plan_dgx_fabric(const SpecParams& params, std::int64_t nodes, std::int64_t rails, std::int64_t radix,
                               double oversub, double core_oversub);

// Adds the fabric's switches and the links among them; returns the leaves, rail-major (rail r's leaf i at
// r * leaves_per_rail + i). Node h's NIC on rail r goes to leaf (r, h / nodes_per_leaf).
std::vector<NodeId> add_dgx_fabric(Topology& topology, const DgxFabricShape& shape, Bandwidth bandwidth,
                                   SimTime latency, SwitchReduction reduction);

}  // namespace syncsim::topology_detail
