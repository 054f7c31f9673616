#pragma once
// run_jobs: several training jobs on one cluster, simulated together (docs/jobs.md) — what `syncsim run` does
// with a scenario that has `jobs:`.
//
//   std::optional<JobsScenario> s = load_jobs_scenario("examples/two-jobs-oversubscribed.yaml");
//   JobsReport r = run::run_jobs(*s);        // r.jobs[0].slowdown, r.window_end, ...
//   jobs_json(r);                             // report.json
//
// Each job is placed on whole nodes (job_placement.hpp), then simulated alone on its nodes and with the others and
// the background traffic on one flow model (multi_job_sim.hpp); its slowdown is the ratio of the two mean
// iteration times. A model-parallel job runs as its single-job engine's iteration less the engine's exposed
// data-parallel time, then its data-parallel groups' AllReduces on the shared fabric (docs/jobs.md). InputError at
// the key for what a job asks that the co-simulation does not model yet.
#include <cstdint>

#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/jobs_config.hpp"
#include "syncsim/trace/trace.hpp"
#include "syncsim/training/jobs_report.hpp"

namespace syncsim::run {

struct JobsRunOptions {
  bool bulk = true;  // the executors' bulk path; off only to show that it changes nothing
  // Alike components of rings simulated once per class, and a job alone for one iteration (its iterations are all
  // alike); off only to show that it changes nothing (co_sim_classes.hpp).
  bool classes = true;
  // A component of rings with at least this many transfers an iteration runs each ring's k copies (NCCL's channels
  // of a group with one GPU per server) as one ring of k-fold bytes: the same up to floating-point order.
  std::uint64_t copies_min_transfers = 1'000'000;
  // The together-run's measured iterations (all jobs', up to window_iterations each) as they finish, and its stop
  // flag, checked after every iteration of every job: RunCancelled once it is set (the GUI's progress and cancel).
  const RunProgress* progress = nullptr;
};

JobsReport run_jobs(const JobsScenario& scenario, const JobsRunOptions& options = {});

// The trace of a jobs run (trace.json, docs/jobs.md "The trace"): per job, the first kJobTraceGpus of its GPUs as
// lanes (every GPU of a job runs the same iterations in this model), each iteration's compute and AllReduce from the
// together-run; metadata "job NAME" lists the GPU lanes of each job, in the jobs' order.
inline constexpr std::size_t kJobTraceGpus = 256;
trace::Trace jobs_trace(const JobsReport& report);

}  // namespace syncsim::run
