#pragma once
// Router: shortest paths (fewest hops) between nodes, with deterministic ECMP over equal-cost paths.
//
// Among the fewest-hop paths, those through the fewest GPUs come first (a GPU relays traffic only where the shape
// demands it, as in rings and tori: a DGX reaches another rail through a spine, not through a peer GPU), then
// those with the widest bottleneck (NVLink before a NIC shared over PCIe), then those whose relaying GPUs sit nearest
// the source: where each rail is a network of its own, a transfer to a GPU on another rail moves over NVLink to the
// source node's GPU on that rail and leaves through its NIC (NCCL's PXN, "PCI x NVLink"), instead of crossing the
// network on its own rail and NVLink at the far end. The rest are equal cost.
//
// Where several next hops lie on shortest paths, the one taken follows the destination (D-mod-k, as InfiniBand
// fat-tree routing does): the first choice point takes d mod c1 of its c1 candidates, the next (d / c1) mod c2,
// and so on, where d numbers the destinations in the order of the leaves' ports (a GPU by its NIC's port). The same
// pair always takes the same path, the result never depends on run order or threads, and flows from one leaf to
// distinct destinations below one leaf spread evenly over its uplinks (hashed ECMP would collide).
//
// Cost: a pair's first route is one bidirectional breadth-first search that stops where its two sides meet (a few
// hundred links between far GPUs of a 100,000-GPU fabric, whatever its size); later asks read a hash table.
#include <cstdint>
#include <memory>
#include <vector>

#include "syncsim/core/run_cost.hpp"
#include "syncsim/core/sim_time.hpp"
#include "syncsim/core/strong_id.hpp"
#include "syncsim/core/units.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim {

struct Route {
  std::vector<LinkId> links;  // in order from source to destination
  // Sum of the links' latencies plus the latency of every node passed through (not the endpoints).
  SimTime latency;
  // The smallest bandwidth on the route: the rate of a flow that shares none of its links.
  Bandwidth bottleneck;
};

class Router {
 public:
  // `route_search_budget`: the link visits all of this router's searches may take (run_cost.hpp); a scenario run, whose
  // layout asks routes of many groups, has a larger one than one collective.
  explicit Router(const Topology& topology, std::uint64_t route_search_budget = kRouteSearchBudget);
  ~Router();
  Router(const Router&) = delete;
  Router& operator=(const Router&) = delete;

  // The route from src to dst (src != dst), computed once and cached; the reference stays valid for the
  // Router's lifetime. Throws InputError when dst is unreachable from src.
  const Route& route(NodeId src, NodeId dst);
  const Route& gpu_route(std::size_t src_gpu, std::size_t dst_gpu);
  // route(src, dst).links appended to `links`, without keeping the route when it was not known: for one look at
  // many routes (every member pair of thousands of groups, to find which groups share links), where a collective
  // asks the few its algorithm sends over, again and again.
  void append_route_links(NodeId src, NodeId dst, std::vector<LinkId>& links);

  // Starts the route-search budget again, keeping the routes found: a run that takes over a router an earlier run
  // kept (run::Workspace::router) gets the whole budget for its own searches.
  void renew_budget();

  const Topology& topology() const { return topology_; }
  // Distinct for every Router the process makes (one made where another was freed included): what a cache of facts
  // derived from routes keys them by.
  std::uint64_t serial() const { return serial_; }

 private:
  void check_endpoints(NodeId src, NodeId dst) const;  // distinct nodes of the topology

  struct Impl;
  const Topology& topology_;
  std::unique_ptr<Impl> impl_;
  std::uint64_t serial_ = 0;
};

}  // namespace syncsim
