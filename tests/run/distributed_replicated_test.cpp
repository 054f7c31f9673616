// Synchronous training over parameter servers whose clients are machines (TensorFlow's distributed_replicated,
// training.group_size under sync): the published p2.8xlarge curve, what a machine's NIC carries, and where the
// servers sit (docs/accuracy.md, docs/strategies.md).
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "syncsim/core/input_error.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

const std::string kP2 = std::string(SYNCSIM_RUN_DATA_DIR "/p2-8xlarge/p2-8xlarge.yaml");

struct PublishedPoint {
  int gpus;
  int servers;
  double images_per_s;
};

// benchmarks.tex, table "Parameters achieving peak performance on p2.8xlarge systems", synthetic data.
constexpr double kOneGpu = 30.55;
constexpr PublishedPoint kPublishedPoints[] = {{2, 1, 58.38},   {4, 1, 116.34},   {8, 1, 230.75},    {16, 1, 448.57},
                                               {32, 3, 863.72}, {64, 8, 1731.31}, {128, 16, 3333.20}};

TrainingReport run_p2(int gpus, int servers, std::vector<std::string> more = {}) {
  const int per_machine = std::min(gpus, 8);
  std::vector<std::string> overrides = {fmt::format("cluster.topology.nodes={}", gpus / per_machine),
                                        fmt::format("cluster.topology.gpus={}", per_machine),
                                        fmt::format("training.group_size={}", per_machine),
                                        fmt::format("training.parameter_servers.count={}", servers)};
  overrides.insert(overrides.end(), more.begin(), more.end());
  return run::run_scenario(load_scenario(kP2, overrides)).report;
}

const LinkReport* find_link(const TrainingReport& r, const std::string& from, const std::string& to) {
  for (const LinkReport& link : r.busiest_links) {
    if (link.from == from && link.to == to) return &link;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("TensorFlow distributed_replicated on p2.8xlarge: efficiency within 5 points across machines",
          "[distributed_replicated]") {
  for (const PublishedPoint& p : kPublishedPoints) {
    INFO(p.gpus << " GPUs, " << p.servers << " servers");
    const TrainingReport r = run_p2(p.gpus, p.servers);
    const double measured = p.images_per_s / (p.gpus * kOneGpu);
    if (p.gpus > 8) {
      CHECK(std::abs(r.scaling_efficiency - measured) <= 0.05);
      CHECK(r.exposed_communication_share > 0.04);  // the servers' NICs, growing with the machines
    } else {
      // One machine: the servers' traffic stays on it, and of the 4.5-5.6 points the published runs lose there only
      // the slowest die's pace (0.5-1.4) is in the model, not the K80's two dies sharing a board (docs/accuracy.md).
      CHECK(r.scaling_efficiency >= measured);
      CHECK(r.scaling_efficiency - measured <= 0.045);
      CHECK(r.scaling_efficiency < 1);
    }
  }
}

TEST_CASE("a machine pushes its summed gradient once and pulls once: its NIC carries the model each way") {
  const TrainingReport r = run_p2(16, 1);  // two machines, the one server on machine 0
  double model = 0;
  for (const BucketReport& b : r.buckets) model += static_cast<double>(b.bytes.value);
  const LinkReport* push = find_link(r, "nic1", "leaf0");
  const LinkReport* pull = find_link(r, "leaf0", "nic1");
  REQUIRE(push != nullptr);
  REQUIRE(pull != nullptr);
  CHECK(push->bytes == Approx(model * static_cast<double>(r.iterations)).epsilon(1e-9));
  CHECK(pull->bytes == Approx(model * static_cast<double>(r.iterations)).epsilon(1e-9));
  // Machine 0 holds the server: nothing of its own crosses its NIC towards the server.
  const LinkReport* own = find_link(r, "nic0", "leaf0");
  REQUIRE(own != nullptr);
  CHECK(own->bytes == Approx(pull->bytes).epsilon(1e-9));  // only the pull it serves to machine 1
}

TEST_CASE("distributed_replicated input is checked against the groups") {
  CHECK_THROWS_WITH(run_p2(16, 1, {"training.group_size=3"}), Catch::Contains("groups of 3 do not divide"));
  CHECK_THROWS_WITH(run_p2(16, 3), Catch::Contains("3 colocated servers need as many groups, but 16 workers make 2"));
}
