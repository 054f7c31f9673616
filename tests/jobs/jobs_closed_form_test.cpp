// The closed forms (issue 44): two communication-bound jobs on a 2:1 oversubscribed two-tier fabric,
// spread and packed; two DDP jobs with compute; background traffic on a spine-crossing ring.
#include <catch2/catch.hpp>

#include "jobs_yaml.hpp"
#include "syncsim/run/multi_job_run.hpp"

namespace syncsim {
namespace {

JobsReport run_yaml(const std::string& yaml, run::JobsRunOptions options = {}) {
  const std::optional<JobsScenario> scenario = parse_jobs_scenario(yaml, "jobs.yaml");
  REQUIRE(scenario);
  return run::run_jobs(*scenario, options);
}

// fattree n=8, radix 4, oversub 2: leaves L0..L3 hold GPUs {0,1} {2,3} {4,5} {6,7}, one uplink each to the spine.
//
// spread: the cursor deals nodes over the leaves, a = {0, 2, 4, 6}, b = {1, 3, 5, 7}. a's ring 0->2->4->6->0 sends
// every hop up its leaf's one uplink and down the next leaf's, and so does b's ring 1->3->5->7->1 on the same
// leaves: every uplink and spine downlink carries one flow of each job at all times (no compute: both are always
// on the wire), and each gets half of it. Alone, each flow has its links to itself. The AllReduce's time is all
// bandwidth term (no latency), so each job's slowdown is the uplinks' share: 1 / (1/2) = 2.
TEST_CASE("two comm-bound jobs spread over a 2:1 fabric: each gets half the uplinks, slowdown 2", "[jobs]") {
  const JobsReport r = run_yaml(jobs_test::two_tier_cluster() + "jobs:\n" + jobs_test::wire_job("a", 4) +
                                jobs_test::wire_job("b", 4) + "placement: spread\nwindow_iterations: 5\n");
  REQUIRE(r.jobs.size() == 2);
  CHECK(r.jobs[0].nodes == std::vector<std::int64_t>{0, 2, 4, 6});
  CHECK(r.jobs[1].nodes == std::vector<std::int64_t>{1, 3, 5, 7});
  for (const JobReport& j : r.jobs) {
    CHECK(j.compute <= SimTime::from_ps(1));  // the compute model's least time: nothing beside a 12 ms ring
    // Alone: 2(n-1)/n x 100 MB at 12.5 GB/s = 1.5 x 8 ms = 12 ms.
    CHECK(j.alone_iteration_time.seconds() == Approx(2.0 * 3 / 4 * 100e6 / 12.5e9).epsilon(1e-9));
    CHECK(j.slowdown == Approx(2.0).epsilon(1e-6));
    CHECK(j.iterations >= 5);
    CHECK(j.shared_link_count == 8);  // 4 uplinks and 4 spine downlinks
    REQUIRE_FALSE(j.shared_links.empty());
    CHECK(j.shared_links.front().with == std::vector<std::string>{j.name == "a" ? "b" : "a"});
  }
}

// packed: a = nodes 0..3 (leaves L0, L1), b = 4..7 (L2, L3): the rings never meet, so each runs as alone.
TEST_CASE("two comm-bound jobs packed in their own leaves: slowdown exactly 1", "[jobs]") {
  const JobsReport r = run_yaml(jobs_test::two_tier_cluster() + "jobs:\n" + jobs_test::wire_job("a", 4) +
                                jobs_test::wire_job("b", 4) + "placement: packed\nwindow_iterations: 5\n");
  CHECK(r.jobs[0].nodes == std::vector<std::int64_t>{0, 1, 2, 3});
  CHECK(r.jobs[1].nodes == std::vector<std::int64_t>{4, 5, 6, 7});
  for (const JobReport& j : r.jobs) {
    CHECK(j.slowdown == 1.0);
    CHECK(j.shared_link_count == 0);
  }
}

// fattree n=8, radix 8, oversub 2: two leaves of 4 GPUs, two uplinks each (spine0, spine1), routed D-mod-k: a flow
// to GPU d leaves its leaf on uplink d mod 2. packed: a = {0..3} on L0, b = {4..7} on L1, rings inside their leaf.
// spread: a = {0, 1, 4, 5}, b = {2, 3, 6, 7}; a crosses on 1->4 and 5->0, b on 3->6 and 7->2, every destination even,
// so all four flows take spine0: L0's uplink to it carries 1->4 and 3->6, L1's 5->0 and 7->2, half each: slowdown 2.
TEST_CASE("two comm-bound jobs in one leaf each: packed 1, spread 2 on the D-mod-k uplink", "[jobs]") {
  const std::string cluster = "cluster:\n  gpu: " + std::string(jobs_test::kInstantGpu) +
                              "\n  topology: \"fattree:n=8,radix=8,bw=100Gbps,oversub=2\"\n";
  const std::string jobs =
      "jobs:\n" + jobs_test::wire_job("a", 4) + jobs_test::wire_job("b", 4) + "window_iterations: 4\n";
  const JobsReport packed = run_yaml(cluster + jobs + "placement: packed\n");
  const JobsReport spread = run_yaml(cluster + jobs + "placement: spread\n");
  CHECK(spread.jobs[0].nodes == std::vector<std::int64_t>{0, 1, 4, 5});
  for (std::size_t j = 0; j < 2; ++j) {
    CHECK(packed.jobs[j].slowdown == 1.0);
    CHECK(spread.jobs[j].slowdown == Approx(2.0).epsilon(1e-6));
  }
}

// The executors' bulk steps hold their links by claim; the other job's flows break the claims. The per-flow run
// (every transfer a flow from the start) must give the same times.
TEST_CASE("jobs: bulk claims break when the other job's flows arrive, as per-flow runs say", "[jobs]") {
  const std::string yaml = jobs_test::two_tier_cluster() + "jobs:\n" + jobs_test::wire_job("a", 4) +
                           jobs_test::wire_job("b", 4) + "placement: spread\nwindow_iterations: 3\nseed: 7\n";
  const JobsReport bulk = run_yaml(yaml);
  const JobsReport flows = run_yaml(yaml, run::JobsRunOptions{.bulk = false});
  for (std::size_t j = 0; j < 2; ++j) {
    CHECK(bulk.jobs[j].iteration_time.seconds() == Approx(flows.jobs[j].iteration_time.seconds()).epsilon(1e-9));
    CHECK(bulk.jobs[j].alone_iteration_time.seconds() ==
          Approx(flows.jobs[j].alone_iteration_time.seconds()).epsilon(1e-9));
  }
}

// With compute, each job is on the wire only part of its iteration: the other job's ring finds the uplinks free
// some of the time, so the slowdown lies strictly between none and the comm-bound bound of 2.
TEST_CASE("two DDP jobs with compute, spread: slowdown between 1 and 2, over a stated window", "[jobs]") {
  const std::string a100 = "A100-SXM4-80GB";
  const JobsReport r = run_yaml(jobs_test::two_tier_cluster(a100) + "jobs:\n" + jobs_test::ddp_job("a", 4) +
                                jobs_test::ddp_job("b", 4) + "placement: spread\nwindow_iterations: 10\nseed: 3\n");
  CHECK(r.window_end > r.window_start);
  CHECK(r.window_iterations == 10);
  for (const JobReport& j : r.jobs) {
    CHECK(j.compute > SimTime::zero());
    CHECK(j.slowdown > 1.0);
    CHECK(j.slowdown < 2.0);
    CHECK(j.iterations >= 10);
    CHECK(j.offset < j.alone_iteration_time);
  }
}

// One job on fattree n=4 (leaves {0,1} {2,3}, one uplink each): its ring 0->1->2->3->0 crosses the spine on 1->2 and
// 3->0. Background at rate r on the spine's links (or between nodes 1 and 2, the same route as 1->2) is capped at r
// by its private link; max-min gives the ring's flow there what is left, bw - r, while r <= bw/2. The ring moves at
// its slowest flow, so the AllReduce (all bandwidth term) slows by bw / (bw - r): 2 at half the rate, 4/3 at a
// quarter.
TEST_CASE("background at half a spine link's rate slows a spine-crossing ring by bw / (bw - r)", "[jobs]") {
  const std::string base = jobs_test::two_tier_cluster(jobs_test::kInstantGpu, 4) + "jobs:\n" +
                           jobs_test::wire_job("a", 4) + "window_iterations: 3\n";
  const JobsReport half = run_yaml(base + "background: [{link_class: spine, rate: 50Gbps}]\n");
  CHECK(half.background_flows == 4);  // leaf0 <-> spine, leaf1 <-> spine, both directions
  CHECK(half.jobs[0].slowdown == Approx(2.0).epsilon(1e-6));
  CHECK(half.jobs[0].shared_links.front().with == std::vector<std::string>{"background"});
  const JobsReport quarter = run_yaml(base + "background: [{between: [1, 2], rate: 25Gbps}]\n");
  CHECK(quarter.background_flows == 1);
  CHECK(quarter.jobs[0].slowdown == Approx(100.0 / 75.0).epsilon(1e-6));
}

TEST_CASE("bursty background: seeded, between none and constant background at twice the rate", "[jobs]") {
  const std::string base = jobs_test::two_tier_cluster(jobs_test::kInstantGpu, 4) + "jobs:\n" +
                           jobs_test::wire_job("a", 4) + "window_iterations: 10\n";
  const std::string bursty = base + "background: [{link_class: spine, rate: 25Gbps, burst: 5ms}]\n";
  const JobsReport once = run_yaml(bursty + "seed: 1\n");
  CHECK(jobs_json(once).dump() == jobs_json(run_yaml(bursty + "seed: 1\n")).dump());
  // On, it sends at 50 Gb/s (slowdown 2 while on); off, nothing.
  CHECK(once.jobs[0].slowdown > 1.0);
  CHECK(once.jobs[0].slowdown < 2.0);
}

TEST_CASE("jobs: the same scenario and seed give the same report, byte for byte", "[jobs]") {
  const std::string yaml = jobs_test::two_tier_cluster("A100-SXM4-80GB") + "jobs:\n" + jobs_test::ddp_job("a", 2) +
                           jobs_test::ddp_job("b", 6) + "placement: random\nseed: 11\nwindow_iterations: 4\n" +
                           "background: [{between: [[0, 1], 7], rate: 10Gbps, burst: 1ms}]\n";
  CHECK(jobs_json(run_yaml(yaml)).dump() == jobs_json(run_yaml(yaml)).dump());
}

}  // namespace
}  // namespace syncsim
