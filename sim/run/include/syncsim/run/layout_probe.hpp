#pragma once
// LayoutProbe: one plan point's memory and a lower bound of its iteration time under any layout, without
// simulating — what `syncsim plan --layouts auto` sorts and prunes its candidates by (docs/planner.md, "The layout
// search"), as `--algo auto` prunes collectives by their closed forms.
//
// The bound is the engine's own setup (the same layers, stage cuts, chunks, buckets and optimizer steps) with every
// collective at its floor instead of simulated. A collective of S bytes over groups of n GPUs cannot end before
//
//   a GPU has sent (or received) (n - 1)/n x S        (a stage-to-stage send: all of S), at the most any GPU's
//                                                      links carry, nor before
//   a server has passed, for every group with members on it spanning N servers, (N - 1)/N x S across its
//   boundary                                           (a send leaving it: S), at what its links to the rest carry:
//
// what has to leave a GPU or a server, whatever the algorithm (rings, trees, in-network reduction), and (with NCCL's
// latency model) no faster than NCCL's bus-bandwidth ceiling lets the cheapest algorithm go (busbw_floor). Over the
// floors, with F[s][c] and B[s][c] chunk c's forward and backward on stage s, X a stage-to-stage transfer and m the
// micro-batches:
//
//   arrive(s) = sum over s' < s of (F[s'][0] + X)                   the first micro-batch's forward reaching s
//               (under full sharding in the pipeline engine, first iteration: no earlier than each stage's first
//               chunk's parameter gathers)
//   end(s)    = arrive(s) + m x sum over c of (F[s][c] + B[s][c])   the earliest stage s's last pass ends
//   tail(s)   = what its data-parallel stream must still run after that: its buckets, each ready `ready` of the way
//               through its chunk's last backward, one after another (the least over the chunks, since any may
//               hold the stage's last pass)
//   T >= max(end(s) + tail(s), every bucket's collective of s one after another) + the optimizer step of s
//   T >= end(s) + sum over s' < s of (B[s'][0] + X) + tail(0) + the step of stage 0   the last backward's way
//                                                                                     back to the first stage
//
// (sharded: the step over the data-parallel ranks). F and B include the tensor-, context- and expert-parallel
// collectives (on the compute stream). A data-parallel layout (no tensor, pipeline or context split) is bounded by
// its compute, its stream and its step alone. With stragglers (jitter or slow ranks) compute times vary by rank and
// the bound is zero: nothing is pruned. Checked against the simulation of every fitting candidate of an 8B, a
// Mixtral, a 70B and a 405B question (docs/planner.md, "The layout search").
#include <memory>

#include "syncsim/compute/memory_check.hpp"
#include "syncsim/core/sim_time.hpp"
#include "syncsim/run/workspace.hpp"
#include "syncsim/scenario/scenario.hpp"

namespace syncsim::run {

// A layout to probe: the parallelism section's values (sizes, sharding, schedule, virtual stages, checkpointing,
// tp_comm_overlap) and the batch they train.
struct ProbeLayout {
  ParallelismConfig parallelism;
  std::int64_t batch_per_gpu = 1;
  std::int64_t micro_batches = 1;
};

class LayoutProbe {
 public:
  // `point`: a loaded scenario (its GPU, model, topology and worker count); its own layout is replaced by each
  // probed one. `workspace`: the one the point's simulations run in, so the probe's routes (and what collectives
  // derive from them) are found once for both.
  LayoutProbe(const Scenario& point, Workspace& workspace);
  ~LayoutProbe();
  LayoutProbe(const LayoutProbe&) = delete;
  LayoutProbe& operator=(const LayoutProbe&) = delete;

  // One GPU's memory (scenario_memory's). Throws InputError at the key when the model cannot be split so (its heads,
  // experts or checkpointing): the reason a candidate is skipped.
  MemoryReport memory(const ProbeLayout& layout);
  // A time no simulation of one iteration under `layout` goes below (above). Throws as memory() does.
  SimTime lower_bound(const ProbeLayout& layout);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace syncsim::run
