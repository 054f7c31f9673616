#pragma once
// run_scenario: simulate one training scenario end to end — what `syncsim run` prints and writes.
//
//   Scenario s = load_scenario("examples/resnet50-dgx-8gpu.yaml");
//   RunOutput out = run_scenario(s);
//   out.report.samples_per_second;        // TrainingReport (training_report.hpp), report.json via to_json
//   trace::write_chrome_trace(out.trace, file);
//
// Which engine runs depends on training.strategy and training.communication (training_config.hpp): synchronous
// AllReduce (and local SGD) run as per-rank timelines over cached collective times (synchronous_run.hpp);
// everything with parameter servers runs on the event-driven flow model, so that server incast shows.
//
// Every check that needs the catalogs or the topology (GPU and model names, ranks, node names) happens here and
// throws InputError with the scenario's file position; nothing is written by this function.
#include "syncsim/scenario/scenario.hpp"
#include "syncsim/trace/trace.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::run {

struct RunOutput {
  TrainingReport report;
  trace::Trace trace;
};

RunOutput run_scenario(const Scenario& scenario);

}  // namespace syncsim::run
