#pragma once
// Several jobs on one simulator and one flow model (docs/jobs.md, "What is co-simulated").
//
// Each job loops on its own clock from its offset: its compute as one timer, then its data-parallel AllReduce (in
// every data-parallel group of a model-parallel layout) as ring channels (one CollectiveExecutor each) on the shared
// flow model, then its next iteration. Flows of all jobs and of the background share links max-min fairly; an
// executor's bulk step holds its links by claim, and the claim breaks into real flows the moment another job's flow
// starts on one of them (collective_executor.hpp), so bulk and per-flow runs agree (tested).
//
// The window: it opens when the last job has started (the largest offset) and closes when every job has finished
// `window_iterations` iterations that started inside it. A job's iteration time is the mean of its iterations that
// started inside the window (all of them ended by its close); every job runs until the close, so each measured
// iteration saw the others running.
//
//   offset_j ─┬─ iteration ─┬─ iteration ─┬─ ...        job j: [compute timer][ring AllReduce channels]
//   window:   [start = max offset ..................... end = last job's window_iterations-th measured iteration]
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "syncsim/collectives/collective_plan.hpp"
#include "syncsim/core/sim_time.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/topology/router.hpp"
#include "syncsim/topology/topology.hpp"
#include "syncsim/training/jobs_report.hpp"

#include "background_traffic.hpp"

namespace syncsim::run {

// One channel of one group's ring AllReduce: the plan, and the GPU of each of its ranks.
struct CoCollective {
  std::shared_ptr<const CollectivePlan> plan;
  std::vector<NodeId> gpus;
  // How many identical channels (the same plan on the same GPUs) this one stands for: its wire bytes are k-fold
  // (co_sim_classes.hpp, "Copies").
  std::uint32_t copies = 1;
};

struct CoJob {
  SimTime compute;  // per iteration, before the AllReduce
  // Every channel of every data-parallel group's AllReduce, all started together; empty for a job of one GPU.
  std::vector<CoCollective> collectives;
  SimTime offset;
};

struct CoSimOptions {
  std::int64_t window_iterations = 20;
  bool bulk = true;        // the executors' bulk path (off: every transfer a flow; the same results, tested)
  std::uint64_t seed = 0;  // the background's on/off periods
  // Told the measured iterations done of jobs x window_iterations; its stop flag ends the run (RunCancelled).
  const RunProgress* progress = nullptr;
};

struct CoJobResult {
  std::int64_t iterations = 0;  // measured (started inside the window)
  SimTime mean;                 // their mean
  // Every iteration it ran, from its offset (the first kJobIterationsRecorded), for the trace.
  std::vector<JobIterationRun> runs = {};
};

struct CoSimResult {
  SimTime window_start;
  SimTime window_end;
  std::size_t slowest = 0;  // the job whose last measured iteration closed the window
  std::vector<CoJobResult> jobs;
};

// `flow_topology`: the topology with the background's private links (with_private_links); `router` routes on the
// topology it was copied from. InputError-free: the inputs are checked before.
CoSimResult co_simulate(const Topology& flow_topology, Router& router, const std::vector<CoJob>& jobs,
                        const std::vector<BackgroundFlow>& background, const CoSimOptions& options);

}  // namespace syncsim::run
