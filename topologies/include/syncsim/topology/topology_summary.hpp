#pragma once
// What `syncsim topo` prints: nodes and links by kind, bisection bandwidth, diameter.
#include <map>
#include <string>

#include "syncsim/topology/topology.hpp"

namespace syncsim {

struct TopologySummary {
  std::map<NodeKind, std::size_t> nodes_by_kind;
  std::map<LinkKind, std::size_t> links_by_kind;  // physical (duplex) links; a simplex link counts as one
  std::size_t gpu_count = 0;
  // Max flow (one direction) between GPUs [0, n/2) and [n/2, n): the bisection of the GPU index order, which is
  // the worst case for rings, tori and trees built in index order.
  Bandwidth bisection_bandwidth;
  // Largest hop count and largest route latency over all GPU pairs (on the routes the Router picks). Exact when
  // diameter_exact; otherwise lower bounds, with the upper bounds below (equal to them when exact).
  std::size_t diameter_hops = 0;
  SimTime diameter_latency;
  bool diameter_exact = true;
  std::size_t diameter_hops_upper = 0;
  SimTime diameter_latency_upper;
};

// Elementary steps (searches x (nodes + links)) the exact diameter may take; above it the diameter is bounded by a
// few searches. 2e8 is about a third of a second, and more than any topology in tests/ or examples/ needs.
inline constexpr double kDiameterWorkBudget = 2e8;

TopologySummary summarize(const Topology& topology, double diameter_work_budget = kDiameterWorkBudget);
// Human-readable multi-line text of the summary.
std::string to_text(const TopologySummary& summary, const Topology& topology);

}  // namespace syncsim
