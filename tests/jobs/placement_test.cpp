// Placement policies (job_placement.hpp): the node sets worked out by hand from the fat tree's leaves.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "job_placement.hpp"
#include "jobs_yaml.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim {
namespace {

std::vector<run::JobPlacement> place(const std::string& yaml) {
  const std::optional<JobsScenario> scenario = parse_jobs_scenario(yaml, "jobs.yaml");
  REQUIRE(scenario);
  return run::place_jobs(*scenario, *scenario_topology(scenario->base));
}

using Nodes = std::vector<std::int64_t>;

// fattree n=8, radix 4: nodes are GPUs (no hosts), leaves L0..L3 hold {0,1} {2,3} {4,5} {6,7}.
TEST_CASE("placement packed: jobs take the next nodes leaf by leaf", "[jobs]") {
  const auto p = place(jobs_test::two_tier_cluster() + "jobs:\n" + jobs_test::wire_job("a", 2) +
                       jobs_test::wire_job("b", 4) + jobs_test::wire_job("c", 2));
  CHECK(p[0].nodes == Nodes{0, 1});
  CHECK(p[1].nodes == Nodes{2, 3, 4, 5});
  CHECK(p[2].nodes == Nodes{6, 7});
}

// The cursor turns after every node: a takes L0's 0 and L1's 2, b L2's 4 and L3's 6, c the rest one per leaf.
TEST_CASE("placement spread: jobs dealt round-robin over the leaves", "[jobs]") {
  const auto p = place(jobs_test::two_tier_cluster() + "jobs:\n" + jobs_test::wire_job("a", 2) +
                       jobs_test::wire_job("b", 2) + jobs_test::wire_job("c", 4) + "placement: spread\n");
  CHECK(p[0].nodes == Nodes{0, 2});
  CHECK(p[1].nodes == Nodes{4, 6});
  CHECK(p[2].nodes == Nodes{1, 3, 5, 7});
}

// b (4 GPUs) first: no leaf holds it, so the leaves with most free nodes, L0 and L1; then a and c each fill a leaf.
TEST_CASE("placement rail: largest job first, each job on as few leaves as hold it", "[jobs]") {
  const auto p = place(jobs_test::two_tier_cluster() + "jobs:\n" + jobs_test::wire_job("a", 2) +
                       jobs_test::wire_job("b", 4) + jobs_test::wire_job("c", 2) + "placement: rail\n");
  CHECK(p[1].nodes == Nodes{0, 1, 2, 3});
  CHECK(p[0].nodes == Nodes{4, 5});
  CHECK(p[2].nodes == Nodes{6, 7});
}

TEST_CASE("placement explicit: the nodes given, ranks in node order", "[jobs]") {
  const auto p = place(jobs_test::two_tier_cluster() + "jobs:\n" + jobs_test::wire_job("a", 2) +
                       jobs_test::wire_job("b", 1) + "placement: {a: [7, 0], b: [3]}\n");
  CHECK(p[0].nodes == Nodes{0, 7});
  CHECK(p[0].gpus == std::vector<std::size_t>{0, 7});
  CHECK(p[1].nodes == Nodes{3});
}

// dgx: nodes are hosts of 8 GPUs; a job of 12 takes two whole nodes and trains on the first 12 GPUs of them.
TEST_CASE("placement on hosts: whole nodes, the first GPUs of them", "[jobs]") {
  const auto p = place("cluster: {gpu: A100-SXM4-80GB, topology: \"dgx:nodes=4,gpus=8\"}\njobs:\n" +
                       jobs_test::wire_job("a", 12) + jobs_test::wire_job("b", 8));
  CHECK(p[0].nodes == Nodes{0, 1});
  CHECK(p[0].gpus.size() == 12);
  CHECK(p[0].gpus.back() == 11);
  CHECK(p[1].nodes == Nodes{2});
}

TEST_CASE("placement random: the seed's shuffle, the same every time, disjoint whole nodes", "[jobs]") {
  const std::string yaml = jobs_test::two_tier_cluster() + "jobs:\n" + jobs_test::wire_job("a", 3) +
                           jobs_test::wire_job("b", 4) + "placement: random\nseed: 5\n";
  const auto first = place(yaml);
  const auto again = place(yaml);
  std::set<std::int64_t> seen;
  for (std::size_t j = 0; j < 2; ++j) {
    CHECK(first[j].nodes == again[j].nodes);
    for (const std::int64_t n : first[j].nodes) CHECK(seen.insert(n).second);
  }
  CHECK(first[0].nodes.size() == 3);
  CHECK(first[1].nodes.size() == 4);
}

}  // namespace
}  // namespace syncsim
