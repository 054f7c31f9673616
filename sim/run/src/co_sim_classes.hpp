#pragma once
// Classes of alike rings in the co-simulation of several jobs (multi_job_sim.hpp): what the single-job engine does for
// one job's groups (group_footprints.hpp, channel_copies.hpp), across jobs. Two 8K-GPU jobs of DP 64 x PP 16 x TP 8
// run 2 x 1,024 rings of 64 ranks, 8.3 million transfers a job and iteration; with both rules below, 32 rings.
//
// Components. Two ring channels (of one job or of two) are joined when a link lies on the routes of both (ring
// neighbour to ring neighbour); joined transitively, the channels fall into components that share no link, so no
// flow of one changes a rate in another: the flow model re-solves rates per connected set of links, and within one
// set its solver's order (BFS from the links touched, ties by that order) is the set's own. Components meet only in
// their jobs' loops: a job's next iteration starts when its last channel, in any component, is done.
//
// Classes (exact). Two components are alike when, channel for channel in the jobs' order, they have the same job, the
// same ring (RingPlan::relabelling_of is the identity: same order and bytes) and routes that are images of each other
// under one renaming of the links (numbered by first appearance in the component), link for link with the same
// bandwidth, latency, kind and far node (kind, latency, reduction), with the same route latencies:
//
//   component A (rail 0)   job a: ring(a,0,p0) ring(a,0,p1) ...  job b: ring(b,0,p0) ...    links l1 l2 l3 ...
//   component B (rail 1)   job a: ring(a,1,p0) ring(a,1,p1) ...  job b: ring(b,1,p0) ...    links m1 m2 m3 ...
//                                                          same sharing pattern, l_i <-> m_i alike
//
// Started at the same times, alike components run the same events at the same times, so each finishes every channel
// when its representative (the first of its class) does, and a job's iteration ends when its channels in the
// representatives end: only those are simulated. A component that background traffic crosses is a class of its own.
//
// Copies (bounded). Within a representative, when every channel has exactly k copies (the same ring on the same GPUs:
// NCCL's channels of a group with one GPU per server) and no background crosses it, every flow on its links is one of
// k that start together on one route with the same bytes, so max-min gives them equal shares, and one flow of k-fold
// bytes takes what the k take (rates scale with the bytes): the channel runs once with k-fold wire bytes
// (CoCollective::copies). Exact in real numbers; in floating point the solver subtracts k fixed rates from a link
// where it then subtracts one k-fold rate, a difference in the last bits of a share (tested against every channel:
// within 1e-9). Used only in a component of at least `copies_min_transfers` transfers an iteration.
#include <cstdint>
#include <set>
#include <vector>

#include "syncsim/topology/router.hpp"

#include "multi_job_sim.hpp"

namespace syncsim::run {

struct CoSimClasses {
  std::vector<CoJob> jobs;      // each job with the channels simulated for all (their order kept)
  std::size_t channels = 0;     // all jobs' channels
  std::size_t components = 0;   // sets of channels that share no link with another set
  std::size_t classes = 0;      // components simulated: one per class
  std::size_t simulated = 0;    // channels simulated, after copies
  std::uint64_t transfers = 0;  // per iteration of every job, all channels
  std::uint64_t simulated_transfers = 0;
};

// `jobs` with each component class simulated once. Jobs whose channels are not all ring AllReduces are returned as
// they are. `background_links`: the links background traffic loads.
CoSimClasses co_sim_classes(const std::vector<CoJob>& jobs, Router& router, const std::set<LinkId>& background_links,
                            std::uint64_t copies_min_transfers);

}  // namespace syncsim::run
