// The trace of a jobs run (multi_job_run.hpp, jobs_trace): each job's GPUs as lanes with the together-run's
// iterations, and metadata naming each job's lanes (what the GUI colours by job).
#include <catch2/catch.hpp>

#include <string>

#include "jobs_yaml.hpp"
#include "syncsim/run/multi_job_run.hpp"

namespace syncsim {
namespace {

TEST_CASE("jobs trace: every job's GPUs as lanes, its iterations as the together-run ran them", "[jobs][trace]") {
  const std::string a100 = "A100-SXM4-80GB";
  const std::optional<JobsScenario> scenario =
      parse_jobs_scenario(jobs_test::two_tier_cluster(a100) + "jobs:\n" + jobs_test::ddp_job("a", 4) +
                              jobs_test::ddp_job("b", 4) + "placement: spread\nwindow_iterations: 3\nseed: 3\n",
                          "jobs.yaml");
  REQUIRE(scenario);
  const JobsReport report = run::run_jobs(*scenario);
  const trace::Trace trace = run::jobs_trace(report);

  // spread: a on GPUs 0, 2, 4, 6 and b on 1, 3, 5, 7 (one GPU a node on this fat tree).
  CHECK(report.jobs[0].gpu_indices == std::vector<std::int64_t>{0, 2, 4, 6});
  CHECK(report.jobs[1].gpu_indices == std::vector<std::int64_t>{1, 3, 5, 7});
  std::vector<std::pair<std::string, std::string>> jobs;
  for (const auto& [key, value] : trace.metadata()) {
    if (key.starts_with("job ")) jobs.emplace_back(key, value);
  }
  CHECK(jobs == std::vector<std::pair<std::string, std::string>>{{"job a", "0 2 4 6"}, {"job b", "1 3 5 7"}});
  CHECK(trace.tracks().size() == 16);  // 8 GPUs, a compute and a communication row each

  for (const JobReport& job : report.jobs) {
    // The iterations tile the job's clock from its offset: compute, then AllReduce, then the next.
    REQUIRE(job.runs.size() >= static_cast<std::size_t>(job.iterations));
    CHECK(job.runs.front().start == job.offset);
    for (std::size_t k = 1; k < job.runs.size(); ++k) CHECK(job.runs[k].start == job.runs[k - 1].end);
    // The measured ones (started inside the window) are the report's mean.
    SimTime sum;
    std::int64_t measured = 0;
    for (const JobIterationRun& run : job.runs) {
      CHECK(run.compute_end - run.start == job.compute);
      if (run.start >= report.window_start && measured < job.iterations) {
        sum += run.end - run.start;
        ++measured;
      }
    }
    CHECK(measured == job.iterations);
    CHECK(SimTime::from_ps(sum.ps() / measured) == job.iteration_time);
  }
  // Each GPU lane holds every iteration: a compute span and an AllReduce span.
  std::size_t spans = 0;
  for (const JobReport& job : report.jobs) spans += 2 * job.runs.size() * job.gpu_indices.size();
  CHECK(trace.spans().size() == spans);
}

}  // namespace
}  // namespace syncsim
