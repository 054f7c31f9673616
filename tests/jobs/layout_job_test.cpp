// A model-parallel job beside a data-parallel one (docs/jobs.md, "What is co-simulated"): its compute is the
// single-job engine's iteration less the engine's exposed data-parallel time, and only its data-parallel groups'
// AllReduces go on the shared fabric.
#include <catch2/catch.hpp>

#include "jobs_yaml.hpp"
#include "syncsim/run/multi_job_run.hpp"
#include "syncsim/run/run_scenario.hpp"

namespace syncsim {
namespace {

std::string layout_jobs(const std::string& placement) {
  return "cluster: {gpu: H100-SXM-80GB, topology: \"fattree:n=16,radix=8,bw=100Gbps,oversub=2\"}\n"
         "jobs:\n"
         "  - {name: llm, gpus: 8, parallelism: {tensor: 4},\n"
         "     model: {name: llama3-8b, batch_per_gpu: 1, sequence_length: 2048, precision: bf16}}\n" +
         jobs_test::ddp_job("cnn", 8) + "placement: " + placement + "\nwindow_iterations: 4\n";
}

TEST_CASE("a tensor-parallel job: the engine's compute, its data-parallel groups on the shared fabric", "[jobs]") {
  const auto scenario = parse_jobs_scenario(layout_jobs("spread"), "jobs.yaml");
  REQUIRE(scenario);
  const JobsReport r = run::run_jobs(*scenario);
  const TrainingReport engine = run::run_scenario(job_scenario(*scenario, 0)).report;
  // The co-simulation runs the AllReduce after the compute: the engine's wait for it and the compute's slowdown
  // beside it both come off.
  const double exposed =
      (engine.exposed_data_share + engine.overlap_interference_share) * static_cast<double>(engine.iteration_mean.ps());
  const JobReport& llm = r.jobs[0];
  CHECK(llm.compute.ps() == engine.iteration_mean.ps() - static_cast<std::int64_t>(exposed));
  // 8 GPUs at tensor 4: data-parallel groups of 2 ranks, 4 of them, each its own ring (no hosts: one channel each).
  CHECK(llm.channels == 4);
  CHECK(llm.shared_traffic.find("tensor, context and pipeline traffic") != std::string::npos);
  CHECK(llm.alone_iteration_time > llm.compute);
  CHECK(llm.shared_link_count > 0);
  CHECK(llm.slowdown >= 1.0);
  // Packed, llm on leaves 0 and 1 (GPUs 0-7: its data groups {0,4} .. {3,7} cross between them), cnn on leaves 2
  // and 3: the rings never meet.
  const JobsReport packed = run::run_jobs(*parse_jobs_scenario(layout_jobs("packed"), "jobs.yaml"));
  CHECK(packed.jobs[0].shared_link_count == 0);
  CHECK(packed.jobs[0].slowdown == 1.0);
}

}  // namespace
}  // namespace syncsim
