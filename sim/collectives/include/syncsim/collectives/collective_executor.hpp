#pragma once
// CollectiveExecutor: runs a CollectivePlan on the flow model, rank by rank, step by step.
//
// Per-flow path: every transfer is a flow in the FlowModel; a rank moves to its next step when its sends were
// delivered, its receives arrived and its reduction is done (see collective_plan.hpp).
//
// Bulk path (docs/architecture.md §10): while all ranks stand at the same step, the plan says the step is uniform, and
// the links it uses carry nothing else, the step's outcome is known in closed form — every transfer runs alone at its
// route's bottleneck rate (a ring's step), or the step's transfers share links and one max-min solve gives them all
// the same finish (an all-to-all's step on a symmetric network: bulk_pattern.hpp) — so one event completes the step
// for all ranks. The executor claims the links for the duration; if another flow starts on one of them, the claim
// breaks and the unfinished transfers become real flows with exactly the bytes and latency they have left, so the
// result is the per-flow result. Tests hold the two paths equal.
//
//   CollectiveExecutor run(sim, flows, router, plan, gpus);
//   run.start();
//   sim.run();
//   SimTime t = run.finish_time() - run.start_time();
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "syncsim/collectives/collective_plan.hpp"
#include "syncsim/collectives/latency_model.hpp"
#include "syncsim/core/simulator.hpp"
#include "syncsim/network/flow_model.hpp"
#include "syncsim/topology/router.hpp"

namespace syncsim {

struct ExecutorOptions {
  bool bulk = true;
  // In lockstep, ranks in identical states are computed once per symmetry class and a ring's steps a run at a time
  // (lockstep_runner.hpp); the results are the same to the picosecond with it off, which is what the switch is for:
  // tests that prove it.
  bool symmetry = true;
  // Rate at which a rank reduces received data (bytes of input per second); nullopt makes reductions free, so
  // collective times equal the network closed forms (docs/architecture.md §5).
  std::optional<Bandwidth> reduction_rate;
  // Per-step latency and protocol efficiency (latency_model.hpp); the default is the physical model. The launch
  // overhead is the caller's to add: it is paid once per collective, not per channel.
  TransferCost cost;
  // Keep every rank's step start times (step_starts()): for traces of small collectives; memory grows with
  // ranks x steps.
  bool record_steps = false;
};

struct ExecutorStats {
  std::uint64_t flows = 0;       // transfers run as flows
  std::uint64_t bulk_steps = 0;  // steps completed in bulk
  std::uint64_t transfers = 0;   // all transfers, either way
  double bytes_sent = 0;         // all bytes sent by all ranks
  double bytes_reduced = 0;

  // Another run's counts added (channels of one collective, groups running one).
  ExecutorStats& operator+=(const ExecutorStats& o) {
    flows += o.flows;
    bulk_steps += o.bulk_steps;
    transfers += o.transfers;
    bytes_sent += o.bytes_sent;
    bytes_reduced += o.bytes_reduced;
    return *this;
  }
};

class CollectiveExecutor final : public EventHandler, public FlowObserver, public LinkClaimant {
 public:
  // `gpus[r]` is the topology node of rank r (the plan's further participants, if any, find theirs from it: see
  // Participant). The plan, flow model and router must outlive the executor.
  CollectiveExecutor(Simulator& sim, FlowModel& flows, Router& router, const CollectivePlan& plan,
                     std::vector<NodeId> gpus, ExecutorOptions options = {});
  ~CollectiveExecutor() override;

  // Starts the collective at sim.now(); `on_done` (optional) is called when the last rank finishes.
  void start(std::function<void()> on_done = {});

  bool done() const;
  SimTime start_time() const;
  SimTime finish_time() const;
  const ExecutorStats& stats() const;
  // With ExecutorOptions::record_steps: per participant (ranks first), when each of its steps began and, last, when it
  // finished, all relative to start_time(). Empty otherwise.
  const std::vector<std::vector<SimTime>>& step_starts() const;

  void on_event(Simulator& sim, std::uint64_t payload) override;
  void on_flow_finished(FlowId flow, std::uint64_t token) override;
  void on_claim_broken() override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Runs one collective alone on a fresh simulator, rank r on GPU r of the router's topology, and returns its
// duration: what `syncsim collective` prints. The router's route cache is reused across calls.
struct CollectiveTiming {
  SimTime time;
  ExecutorStats stats;
  std::uint64_t events = 0;
};
CollectiveTiming time_collective(Router& router, const CollectivePlan& plan, ExecutorOptions options = {});

}  // namespace syncsim
