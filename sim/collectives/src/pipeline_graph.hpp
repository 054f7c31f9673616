#pragma once
// The participants of a pipelined collective's channels as pipeline_lockstep.hpp's recurrence reads them: each
// participant's steps, the peers it sends to with their routes and transfer times, and an order in which every
// participant comes after all that send to it. The ring lockstep reads its channels' peers the same way to find
// channel classes (channel_classes.hpp).
#include <cstdint>
#include <deque>
#include <span>
#include <vector>

#include "syncsim/collectives/collective_executor.hpp"
#include "syncsim/collectives/collective_plan.hpp"
#include "syncsim/topology/router.hpp"

namespace syncsim::collectives_detail {

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
  // The route its transfers take in pass 2's snapshot: `route`, or its links' classes' (channel_classes.hpp).
  const Route* snapshot_route = nullptr;
};

// Every participant of every channel, numbered channel by channel, with its peers and its place in the order.
struct Graph {
  std::vector<const CollectivePlan*> plan_of;  // per participant
  std::vector<std::uint32_t> channel_of;
  std::vector<std::uint32_t> local;  // its number within its channel's plan
  std::vector<std::uint32_t> steps;
  std::vector<std::uint32_t> peer_begin;  // participant p's peers are peers[peer_begin[p] .. peer_begin[p+1])
  std::vector<Peer> peers;
  std::vector<std::uint32_t> order;          // every participant after all that send to it
  std::vector<std::uint32_t> channel_begin;  // channel c's participants are channel_begin[c] .. channel_begin[c+1]
  // Channel classes (channel_classes.hpp): per channel, the channel timed for it (itself when it is timed); per
  // participant, the timed channel's participant it runs as (empty without classes); per link, the link standing
  // for its class in the snapshot (empty: each link for itself); the snapshot routes.
  std::vector<std::uint32_t> timed_as;
  std::vector<std::uint32_t> timed_participant;
  std::vector<std::uint32_t> link_class;
  std::deque<Route> class_routes;
};

inline Peer* find_peer(Graph& graph, std::uint32_t p, std::uint32_t dst) {
  for (std::uint32_t k = graph.peer_begin[p]; k < graph.peer_begin[p + 1]; ++k) {
    if (graph.peers[k].dst == dst) return &graph.peers[k];
  }
  return nullptr;
}

// Each participant's peers, read off its first two steps and its last: a pipeline sends to the same peers at every
// step but where it fills and drains. A send to any other peer makes the sweep give up (the executors then run the
// plan), so a plan this misreads is never timed wrong. false when a participant has too many peers.
bool read_peers(Router& router, std::span<const CollectivePlan* const> channels,
                const std::vector<std::vector<NodeId>>& gpus, const ExecutorOptions& options, Graph& graph);

// A topological order: depth-first over each participant's senders, emitting a participant after all of them.
// Started from the participants in their order, a tree is walked subtree by subtree, so few participants wait with
// part of their inputs (pipeline_lockstep.hpp). false on a cycle.
bool order_participants(Graph& graph);

}  // namespace syncsim::collectives_detail
