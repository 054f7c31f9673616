#pragma once
// Placement of several jobs on one cluster (docs/jobs.md, "Placement"): which nodes each job gets.
//
// A node is a host (the GPUs the topology gives one host id), or a GPU where the topology has no hosts; nodes are
// numbered in host order. A node's leaf is the first network switch its first GPU reaches, directly or through its
// NIC (rail 0's leaf on a rail-optimized fabric). A job takes whole nodes, never shared with another job, and
// trains on the first `gpus` GPUs of them, its ranks in node order.
//
//   packed    nodes in order of (leaf, index): each job takes the next ones (first fit, leaf by leaf)
//   rail      leaf-aligned best fit: jobs in decreasing size; each takes the leaf with the fewest free nodes that
//             still holds it whole; a job no leaf holds takes the leaves with the most free nodes first, so its
//             ring crosses as few leaf uplinks as it can; ties to the lower leaf
//   spread    one cursor over the leaves, turning after every node: a job's nodes are dealt round-robin over the
//             leaves, and the next job continues where the cursor stopped, so jobs interleave under every leaf
//   random    the nodes shuffled by the scenario's seed, then taken in that order
//   explicit  the node lists given
#include <cstddef>
#include <cstdint>
#include <vector>

#include "syncsim/scenario/jobs_config.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim::run {

struct ClusterNodes {
  std::vector<std::vector<std::size_t>> gpus;  // per node, its GPU indices in order
  std::vector<std::size_t> leaf;               // per node, its leaf (dense, in order of first appearance)
  std::size_t leaf_count = 0;
};

ClusterNodes cluster_nodes(const Topology& topology);

struct JobPlacement {
  std::vector<std::int64_t> nodes;  // ascending
  std::vector<std::size_t> gpus;    // GPU index of rank r
};

// One placement per job of scenario.jobs, in its order. InputError at the job's gpus when the nodes left do not
// hold it, and at an explicit list's node when it does not exist, is given twice or holds too few or many GPUs.
std::vector<JobPlacement> place_jobs(const JobsScenario& scenario, const Topology& topology);

}  // namespace syncsim::run
