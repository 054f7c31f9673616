#pragma once
// Channel classes of a collective run in lockstep (lockstep_runner.hpp, pipeline_lockstep.hpp): channels that run
// as one another does up to a renaming of their participants and of the network's links, timed once for all.
//
// NCCL runs a ring, or a tree channel pair, per rail: on a DGX cluster ring c enters every node at GPU c, and the
// chains of tree pair c start at GPU c of every node with the trees' edges between nodes on rail c. Rotating every
// node's GPUs (and with them the NICs, rails and their switches' links) turns one channel (pair) into the next, so
// their participants start their steps at the same times, and every link of a class carries, transfer for
// transfer, what every other one does. The channels' sizes must repeat too (channel_bytes, collective_runner.hpp):
// classes are tried with a period of 1, 2, 4, ... channels.
//
// Channel k is timed as an earlier channel j when k's plan is a relabelling of j's (CollectivePlan::relabelling_of)
// and the routes agree: each participant's peers map to its image's peers, route onto route, link by link, with
// equal capacities, latencies and link classes, under one renaming of the links sigma_k per channel (a link never
// maps to two links, nor two links to one). A link class is a set of links that the sigmas connect. The fluid
// snapshot then runs the timed channels' transfers alone, each on its route's classes (one link standing for each):
// when every class has exactly as many links as each channel class has channels, and each timed link's images
// under its class's sigmas are distinct, every link of a class carries one image of each timed transfer crossing
// the class, so a class's link carries what the snapshot's stand-in does, and the max-min rates are the full
// network's (up to the floating-point order of their sums). Where a condition fails, every channel is its own
// class: the result is the same model, at its full cost.
#include <cstdint>
#include <span>

#include "pipeline_graph.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim::collectives_detail {

// Sets graph.timed_as, graph.timed_participant, graph.link_class and the timed channels' peers' snapshot routes;
// leaves the graph as read_peers made it (each channel its own class) when no two channels are alike or a
// condition above fails.
void find_channel_classes(const Topology& topology, std::span<const CollectivePlan* const> channels, Graph& graph);

// How many channels are timed for all (LockstepTiming::timed_channels): 0 without classes.
std::size_t timed_channels(const Graph& graph);

}  // namespace syncsim::collectives_detail
