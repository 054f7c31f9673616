#pragma once
// run_scenario: simulate one training scenario end to end — what `syncsim run` prints and writes.
//
//   Scenario s = load_scenario("examples/resnet50-dgx-8gpu.yaml");
//   RunOutput out = run_scenario(s);      // or run_scenario(s, workspace) to reuse collectives across runs
//   out.report.samples_per_second;        // TrainingReport (training_report.hpp), report.json via to_json
//   trace::write_chrome_trace(out.trace, file);
//
// Which engine runs depends on training.strategy and training.communication (training_config.hpp): synchronous
// AllReduce (and local SGD) run as per-rank timelines over cached collective times (synchronous_run.hpp);
// everything with parameter servers runs on the event-driven flow model, so that server incast shows.
//
// Every check that needs the catalogs or the topology (GPU and model names, ranks, node names) happens here and
// throws InputError with the scenario's file position; nothing is written by this function.
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>

#include "syncsim/run/workspace.hpp"
#include "syncsim/scenario/scenario.hpp"
#include "syncsim/trace/trace.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::run {

struct RunOutput {
  TrainingReport report;
  trace::Trace trace;
  // With `reliability:`, one sampled realization of the job's weeks (syncsim/run/job_timeline.hpp), written as
  // job_timeline.json; none without, or past the picosecond clock (about 106 days).
  std::optional<trace::Trace> job_timeline{};
};

// Progress and cancellation for callers that run scenarios on a worker thread (the GUI). on_iteration is called
// from the simulating thread after each completed iteration (synchronous strategies) or worker update
// (asynchronous ones): `done` of `total`. When *stop is true at such a point, run_scenario throws RunCancelled.
struct RunProgress {
  std::function<void(std::int64_t done, std::int64_t total)> on_iteration;
  const std::atomic<bool>* stop = nullptr;
};

class RunCancelled : public std::runtime_error {
 public:
  RunCancelled() : std::runtime_error("the run was cancelled") {}
};

// Collectives that earlier runs with `workspace` simulated are reused (outputs are the same either way).
RunOutput run_scenario(const Scenario& scenario, Workspace& workspace, const RunProgress* progress = nullptr);
// A run of its own, on a fresh workspace: for callers that run once.
RunOutput run_scenario(const Scenario& scenario, const RunProgress* progress = nullptr);

// One GPU's memory under the scenario's `parallelism` (memory_check.hpp's layout: the fullest pipeline stage),
// without simulating: what `syncsim memory` prints. Throws InputError as run_scenario does for the scenario, and at
// the key for what the memory check does not model (activation checkpointing, expert parallelism).
MemoryReport scenario_memory(const Scenario& scenario);

// The scenario's model, resolved against the catalog (an error at the key that names it).
ModelSpec scenario_model(const Scenario& scenario);

}  // namespace syncsim::run
