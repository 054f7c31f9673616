// Bottleneck attribution: on made-up shares (the rule), and on the 16-vs-32 example (the run).
#include <catch2/catch.hpp>

#include "bottleneck.hpp"  // sim/run/src
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

TrainingReport shares(double compute, double optimizer, double exposed, double idle) {
  TrainingReport r;
  r.compute_share = compute;
  r.optimizer_share = optimizer;
  r.exposed_communication_share = exposed;
  r.idle_share = idle;
  r.busiest_links = {{"nic0", "leaf0", "network", 1e9, SimTime::from_ms(1), 0.9},
                     {"ps0", "spine0", "network", 1e9, SimTime::from_ms(1), 0.5}};
  return r;
}

}  // namespace

TEST_CASE("the largest cause of lost time names the bound once it costs a tenth of the iteration") {
  // 55% compute, 45% exposed communication: the communication is what to fix (the old largest-share rule said
  // compute).
  const BottleneckReport b = run::attribute_bottleneck(shares(0.4, 0.15, 0.45, 0));
  CHECK(b.bound == "communication");
  CHECK(b.resource == "nic0 -> leaf0 (inter-node network)");
  CHECK(b.link_class == "network");
  CHECK(b.communication_share == Approx(0.45));
  CHECK(b.bound_share == Approx(0.45));
  CHECK(b.summary == "45% of the iteration is exposed communication on nic0 -> leaf0 (inter-node network)");
  CHECK(run::attribute_bottleneck(shares(0.2, 0.0, 0.2, 0.6)).bound == "stragglers");
  CHECK(run::attribute_bottleneck(shares(0.2, 0.0, 0.2, 0.6)).summary ==
        "60% of the iteration is waiting on stragglers");
  // No cause reaches 10%: compute-bound, and the summary names the largest loss.
  const BottleneckReport c = run::attribute_bottleneck(shares(0.85, 0.05, 0.06, 0.04));
  CHECK(c.bound == "compute");
  CHECK(c.bound_share == Approx(0.9));
  CHECK(c.summary ==
        "compute-bound: 90% of the iteration is compute; the largest loss is 6% (exposed communication on nic0 -> "
        "leaf0 (inter-node network))");
}

TEST_CASE("causes an engine measured replace the shares' estimate of the same kind, and are ranked") {
  TrainingReport r = shares(0.6, 0.0, 0.3, 0.1);
  r.iteration_mean = SimTime::from_ms(100);
  r.group_communication = {{"data", "all_reduce per bucket", 1e9, SimTime::from_ms(30)}};
  // The run repeated without communication gained only 12 ms: the rest of the exposed time was hidden elsewhere.
  r.causes = {{"communication", "data", "", SimTime::from_ms(12), 0, true}};
  const std::vector<CauseReport> causes = run::ranked_causes(r);
  REQUIRE(causes.size() == 2);
  CHECK(causes[0].cause == "communication");
  CHECK(causes[0].measured);
  CHECK(causes[0].share == Approx(0.12));
  CHECK(causes[0].resource == "nic0 -> leaf0 (inter-node network)");
  CHECK(causes[1].cause == "stragglers");
  CHECK(causes[1].per_iteration == SimTime::from_ms(10));
}

TEST_CASE("with parameter servers the server's link is named, even when another link is busier") {
  TrainingReport r = shares(0.3, 0.0, 0.7, 0);
  r.communication = "parameter_server";
  const BottleneckReport b = run::attribute_bottleneck(r);
  CHECK(b.bound == "parameter_server");
  CHECK(b.resource == "ps0 -> spine0 (inter-node network)");
}

TEST_CASE("16 vs 32 over a thin link: compute-bound at 16, the inter-pod link at 32") {
  const std::string file = std::string(SYNCSIM_EXAMPLES_DIR "/bert-large-two-pods.yaml");
  const TrainingReport at16 = run::run_scenario(load_scenario(file, {"cluster.workers=16"})).report;
  CHECK(at16.bottleneck.bound == "compute");
  const TrainingReport at32 = run::run_scenario(load_scenario(file)).report;
  CHECK(at32.bottleneck.bound == "communication");
  CHECK(at32.bottleneck.link_class == "network");
  CHECK_THAT(at32.bottleneck.resource, Catch::Contains("pod0 -> pod1") || Catch::Contains("pod1 -> pod0"));
  CHECK(at32.bottleneck.communication_share > 0.5);
  CHECK(to_json(at32).at("bottleneck").at("bound") == "communication");
}

TEST_CASE("a fault's downtime is failures and restarts, not stragglers") {
  // 10 iterations of 1 s mean: a fault at 2 s, detected at 3 s, resumed at 6 s, 0.5 s of work lost. The workers'
  // idle share (0.45 of the run) is the 4 s of downtime and 0.5 s of straggler wait.
  TrainingReport r = shares(0.53, 0.0, 0.02, 0.45);
  r.iterations = 10;
  r.iteration_mean = SimTime::from_seconds(1);
  r.total = SimTime::from_seconds(10);
  r.downtime = SimTime::from_seconds(4);
  FaultReport f;
  f.at = SimTime::from_seconds(2);
  f.detected = SimTime::from_seconds(3);
  f.resumed = SimTime::from_seconds(6);
  f.lost_work = SimTime::from_ms(500);
  f.downtime = r.downtime;
  r.faults = {f};
  const std::vector<CauseReport> causes = run::ranked_causes(r);
  REQUIRE(causes.size() == 4);
  CHECK(causes[0].cause == "restarts");
  CHECK(causes[0].share == Approx(0.3));  // 3 s of 10
  CHECK(causes[1].cause == "failures");
  CHECK(causes[1].share == Approx(0.15));  // 1 s to detect and 0.5 s lost
  CHECK(causes[2].cause == "stragglers");
  CHECK(causes[2].share == Approx(0.05));
  const BottleneckReport b = run::attribute_bottleneck(r);
  CHECK(b.summary == "30% of the iteration is restarting after failures");
  CHECK(b.straggler_share == Approx(0.05));
}
