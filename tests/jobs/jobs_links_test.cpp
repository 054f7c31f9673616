// What run_jobs keeps for the GUI beside report.json (multi_job_run.hpp): every link each job's AllReduce crosses
// with the job's share of it and whether it is shared (JobReport::links), and the together-run's progress and stop
// flag (JobsRunOptions::progress).
#include <catch2/catch.hpp>

#include <atomic>
#include <map>
#include <string>

#include "jobs_yaml.hpp"
#include "syncsim/run/multi_job_run.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim {
namespace {

// Two wire jobs of 4 GPUs spread over 4 leaves of 2 (one uplink each, 2:1): a on GPUs 0, 2, 4, 6, b on 1, 3, 5, 7;
// both rings cross every leaf's uplink, both ways.
JobsScenario spread_wire_jobs() {
  const std::optional<JobsScenario> scenario =
      parse_jobs_scenario(jobs_test::two_tier_cluster() + "jobs:\n" + jobs_test::wire_job("a", 4) +
                              jobs_test::wire_job("b", 4) + "placement: spread\nwindow_iterations: 4\nseed: 5\n",
                          "jobs.yaml");
  REQUIRE(scenario);
  return *scenario;
}

TEST_CASE("jobs links: every link a job crosses, shared as shared_link_count counts, its share as the report's",
          "[jobs]") {
  const JobsScenario scenario = spread_wire_jobs();
  const JobsReport report = run::run_jobs(scenario);
  const std::shared_ptr<const Topology> topology = scenario_topology(scenario.base);
  std::map<std::uint32_t, double> load;  // all jobs' shares of each link
  for (const JobReport& job : report.jobs) {
    std::map<std::pair<std::string, std::string>, const JobLinkUse*> by_name;
    std::int64_t shared = 0;
    for (const JobLinkUse& use : job.links) {
      const Link& link = topology->link(LinkId{use.link});
      by_name[{topology->node(link.src).name, topology->node(link.dst).name}] = &use;
      shared += use.shared ? 1 : 0;
      CHECK(!use.background);  // no background here
      load[use.link] += use.utilization;
    }
    CHECK(shared == job.shared_link_count);
    // A ring of 4 over 4 leaves: 4 GPU links, 4 uplinks, each both ways, and the report's shared links among them
    // with the same share (utilization_by_job, before report.json rounds it).
    CHECK(job.links.size() == 16);
    CHECK(job.shared_link_count == 8);
    for (const SharedLinkReport& s : job.shared_links) {
      const JobLinkUse* use = by_name.at({s.from, s.to});
      CHECK(use->shared);
      for (const auto& [name, u] : s.utilization_by_job) {
        if (name == job.name) CHECK(use->utilization == u);
      }
    }
  }
  // The flow model never puts more on a link than its bandwidth: the shares of the jobs on a link sum to at most 1.
  for (const auto& [link, u] : load) CHECK(u <= 1 + 1e-9);
}

TEST_CASE("jobs progress: each job's measured iterations up to jobs x window, and the stop flag cancels", "[jobs]") {
  const JobsScenario scenario = spread_wire_jobs();
  std::vector<std::pair<std::int64_t, std::int64_t>> calls;
  std::atomic<bool> stop{false};
  run::RunProgress progress;
  progress.on_iteration = [&](std::int64_t done, std::int64_t total) { calls.emplace_back(done, total); };
  progress.stop = &stop;
  run::JobsRunOptions options;
  options.progress = &progress;
  const JobsReport report = run::run_jobs(scenario, options);
  REQUIRE(calls.size() == 8);  // 2 jobs x window_iterations 4
  for (std::size_t i = 0; i < calls.size(); ++i) CHECK(calls[i] == std::pair<std::int64_t, std::int64_t>(i + 1, 8));
  // Progress changes nothing.
  CHECK(jobs_json(report) == jobs_json(run::run_jobs(scenario)));

  stop = true;
  CHECK_THROWS_AS(run::run_jobs(scenario, options), run::RunCancelled);
}

}  // namespace
}  // namespace syncsim
