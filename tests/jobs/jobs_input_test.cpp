// Bad input in a jobs scenario: an InputError at the file position and key of what is wrong.
#include <catch2/catch.hpp>

#include "jobs_yaml.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/run/multi_job_run.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim {
namespace {

// The error of loading and running `yaml`, or an empty one when there is none.
InputError error_of(const std::string& yaml) {
  try {
    const auto scenario = parse_jobs_scenario(yaml, "jobs.yaml");
    if (scenario) run::run_jobs(*scenario);
  } catch (const InputError& e) {
    return e;
  }
  return InputError("");
}

void check_error(const std::string& yaml, const std::string& key, const std::string& words) {
  const InputError e = error_of(yaml);
  INFO(e.what());
  CHECK(e.key() == key);
  CHECK(std::string(e.what()).find(words) != std::string::npos);
  REQUIRE(e.where());
  CHECK(e.where()->line > 0);
}

TEST_CASE("jobs input: unknown job key, duplicate names", "[jobs]") {
  check_error(jobs_test::two_tier_cluster() + "jobs:\n  - {name: a, gpus: 2, modle: {}}\n", "jobs[0].modle", "unknown");
  check_error(jobs_test::two_tier_cluster() + "jobs:\n" + jobs_test::wire_job("a", 2) + jobs_test::wire_job("a", 2),
              "jobs[1].name", "used twice");
}

TEST_CASE("jobs input: jobs that need more GPUs than the cluster has are refused by name", "[jobs]") {
  check_error(jobs_test::two_tier_cluster() + "jobs:\n" + jobs_test::wire_job("a", 6) + jobs_test::wire_job("big", 4),
              "jobs[1].gpus", "job 'big'");
}

// A one-GPU job of no compute iterates every picosecond: billions of iterations beside a 12 ms ring.
TEST_CASE("jobs input: a job far faster than the slowest is refused before the window runs", "[jobs]") {
  check_error(jobs_test::two_tier_cluster() + "jobs:\n" + jobs_test::wire_job("a", 4) + jobs_test::wire_job("tiny", 1) +
                  "window_iterations: 5\n",
              "jobs[1].gpus", "job 'tiny' would run");
}

TEST_CASE("jobs input: explicit node lists name existing nodes once each", "[jobs]") {
  const std::string jobs = "jobs:\n" + jobs_test::wire_job("a", 2) + jobs_test::wire_job("b", 2);
  check_error(jobs_test::two_tier_cluster() + jobs + "placement: {a: [0, 9], b: [2, 3]}\n", "placement.a[1]",
              "does not exist");
  check_error(jobs_test::two_tier_cluster() + jobs + "placement: {a: [0, 1], b: [1, 3]}\n", "placement.b[0]",
              "given twice");
  check_error(jobs_test::two_tier_cluster() + jobs + "placement: {a: [0, 1]}\n", "placement",
              "job 'b' has no node list");
  check_error(jobs_test::two_tier_cluster() + jobs + "placement: {a: [0, 1], c: [2, 3]}\n", "placement.c", "no job");
}

TEST_CASE("jobs input: a job's layout must match its GPUs, at the job's key", "[jobs]") {
  check_error(jobs_test::two_tier_cluster() + "jobs:\n" + jobs_test::wire_job("a", 4, ", parallelism: {data: 3}"),
              "jobs[0].parallelism.data", "expected 4");
}

TEST_CASE("jobs input: what the co-simulation does not model yet is refused at its key", "[jobs]") {
  check_error(jobs_test::two_tier_cluster() + "jobs:\n" + jobs_test::wire_job("a", 4, ", parallelism: {expert: 2}"),
              "jobs[0].parallelism.expert", "not co-simulated");
  check_error(jobs_test::two_tier_cluster() + "jobs:\n" + jobs_test::wire_job("a", 4) + "stragglers: {}\n",
              "stragglers", "not modelled");
  // Overheads a job's iteration (its compute, then its AllReduce) does not run: refused, never left out in silence.
  check_error(jobs_test::two_tier_cluster() + "jobs:\n" +
                  jobs_test::wire_job("a", 4, ", training: {strategy: sync, framework_overhead: 2ms}"),
              "jobs[0].training.framework_overhead", "not co-simulated");
  check_error(jobs_test::two_tier_cluster() + "jobs:\n" +
                  jobs_test::wire_job("a", 4, ", training: {strategy: sync, overlap_slowdown: 0.1}"),
              "jobs[0].training.overlap_slowdown", "not co-simulated");
  check_error(jobs_test::two_tier_cluster() + "model: {name: resnet50}\njobs:\n" + jobs_test::wire_job("a", 4), "model",
              "each job");
}

TEST_CASE("jobs input: background entries", "[jobs]") {
  const std::string base = jobs_test::two_tier_cluster() + "jobs:\n" + jobs_test::wire_job("a", 4);
  check_error(base + "background: [{between: [0, 8], rate: 1Gbps}]\n", "background[0].between[1]", "does not exist");
  check_error(base + "background: [{link_class: nvlink, rate: 1Gbps}]\n", "background[0].link_class", "no nvlink");
  check_error(base + "background: [{link_class: spine, rate: 1}]\n", "background[0].rate", "bandwidth");
  check_error(base + "background: [{rate: 1Gbps}]\n", "background[0]", "one of between");
}

TEST_CASE("jobs input: the single-job loader refuses jobs, and jobs keys without jobs", "[jobs]") {
  CHECK_THROWS_WITH(
      parse_scenario(jobs_test::two_tier_cluster() + "jobs:\n" + jobs_test::wire_job("a", 4), "jobs.yaml"),
      Catch::Contains("syncsim run"));
  CHECK_THROWS_WITH(
      parse_scenario(jobs_test::two_tier_cluster() + "model: {name: resnet50, batch_per_gpu: 8}\nplacement: spread\n",
                     "jobs.yaml"),
      Catch::Contains("needs jobs:"));
  CHECK_FALSE(parse_jobs_scenario(jobs_test::two_tier_cluster() + "model: {name: resnet50, batch_per_gpu: 8}\n"));
}

}  // namespace
}  // namespace syncsim
