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

TEST_CASE("the largest share names the bound, compute and optimizer count together") {
  CHECK(run::attribute_bottleneck(shares(0.4, 0.15, 0.45, 0)).bound == "compute");  // 0.55 vs 0.45
  CHECK(run::attribute_bottleneck(shares(0.2, 0.0, 0.2, 0.6)).bound == "stragglers");
  const BottleneckReport b = run::attribute_bottleneck(shares(0.3, 0.0, 0.7, 0));
  CHECK(b.bound == "communication");
  CHECK(b.resource == "nic0 -> leaf0 (inter-node network)");
  CHECK(b.link_class == "network");
  CHECK(b.communication_share == Approx(0.7));
}

TEST_CASE("with parameter servers the server's link is named, even when another link is busier") {
  TrainingReport r = shares(0.3, 0.0, 0.7, 0);
  r.communication = "parameter_server";
  const BottleneckReport b = run::attribute_bottleneck(r);
  CHECK(b.bound == "parameter_server");
  CHECK(b.resource == "ps0 -> spine0 (inter-node network)");
}

TEST_CASE("16 vs 32 over a thin link: compute-bound at 16, the inter-pod link at 32") {
  const std::string file = std::string(SYNCSIM_EXAMPLES_DIR) + "/bert-large-two-pods.yaml";
  const TrainingReport at16 = run::run_scenario(load_scenario(file, {"cluster.workers=16"})).report;
  CHECK(at16.bottleneck.bound == "compute");
  const TrainingReport at32 = run::run_scenario(load_scenario(file)).report;
  CHECK(at32.bottleneck.bound == "communication");
  CHECK(at32.bottleneck.link_class == "network");
  CHECK_THAT(at32.bottleneck.resource, Catch::Contains("pod0 -> pod1") || Catch::Contains("pod1 -> pod0"));
  CHECK(at32.bottleneck.communication_share > 0.5);
  CHECK(to_json(at32).at("bottleneck").at("bound") == "communication");
}
