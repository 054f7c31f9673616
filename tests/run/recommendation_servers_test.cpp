// A recommendation model's tables on parameter servers end to end (recommendation_servers_run.cpp): the sparse bytes
// per worker and on the server's link in closed form, the dense part over AllReduce or the servers, memory per
// GPU, determinism, and the errors at their keys.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "syncsim/core/input_error.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/training/training_report.hpp"

using namespace syncsim;

namespace {

// Four tables of 16 rows-per-lookup-distinct (touched share 1: every lookup its own row), one id per sample, 32
// samples per GPU on 4 GPUs in fp32; one dedicated server behind the switch.
constexpr const char* kServersScenario = R"(
name: tiny-dlrm-ps
cluster: {gpu: A100-SXM4-80GB, topology: "switch:n=4,bw=100Gbps,lat=5us"}
model:
  name: tiny-dlrm-ps
  recommendation:
    bottom_mlp: [64, 16]
    tables: [{name: t, rows: 100000, dim: 16, touched_share: 1, repeat: 4}]
    top_mlp: [64, 1]
  batch_per_gpu: 32
training:
  strategy: sync
  communication: parameter_server
  parameter_servers: {count: 1, host: cpu}
  iterations: 3
)";

Scenario servers_scenario(const std::vector<std::string>& overrides = {}) {
  return parse_scenario(kServersScenario, "tiny-ps.yaml", overrides);
}

const GroupCommunication& group(const TrainingReport& r, const std::string& name) {
  for (const GroupCommunication& g : r.group_communication) {
    if (g.group == name) return g;
  }
  FAIL("no group " << name);
  return r.group_communication.front();
}

const LinkReport& link_into(const TrainingReport& r, const std::string& to) {
  for (const LinkReport& l : r.busiest_links) {
    if (l.to == to) return l;
  }
  FAIL("no busiest link into " << to);
  return r.busiest_links.front();
}

// One row on the wire: its 8-byte id and 16 fp32 elements.
constexpr double kRow = 8 + 16 * 4;

}  // namespace

TEST_CASE("tables on servers: each worker pulls and pushes only the rows its batch touches", "[run][recommendation]") {
  const TrainingReport r = run::run_scenario(servers_scenario()).report;
  // Per worker and iteration: 4 tables x 32 distinct rows, pushed and pulled: 2 x 4 x 32 x 72 = 18,432 bytes.
  CHECK(group(r, "embedding").bytes_per_gpu == Approx(2 * 4 * 32 * kRow));
  // The one server's link carries every worker's pushes in: 3 iterations x 4 workers x 4 x 32 x 72 bytes.
  CHECK(link_into(r, "ps0").bytes == Approx(3 * 4 * 4 * 32 * kRow));
  // The dense part goes over AllReduce: its gradient (2 x its bytes) and nothing of it reaches the server.
  CHECK(group(r, "data").bytes_per_gpu > 0);
  // A worker's GPU holds no table, only the dense part and the rows it pulled with their gradients.
  CHECK(r.memory.fits);
  CHECK(r.memory.weights.value < 100'000 * 16 * 4);
}

TEST_CASE("tables on servers: deduplication shrinks the exchange as expected_unique_rows says",
          "[run][recommendation]") {
  // Half the lookups of a batch repeat a row: half the bytes.
  const TrainingReport half =
      run::run_scenario(servers_scenario({"model.recommendation.tables[0].touched_share=0.5"})).report;
  CHECK(group(half, "embedding").bytes_per_gpu == Approx(2 * 4 * 16 * kRow));
}

TEST_CASE("tables on servers: the dense part on the same servers adds its buckets", "[run][recommendation]") {
  const TrainingReport a = run::run_scenario(servers_scenario()).report;
  const TrainingReport b = run::run_scenario(servers_scenario({"training.parameter_servers.dense=servers"})).report;
  const double dense = group(a, "data").bytes_per_gpu;  // 2 x the dense gradient
  CHECK(group(b, "embedding").bytes_per_gpu == Approx(2 * 4 * 32 * kRow + dense));
  CHECK(link_into(b, "ps0").bytes == Approx(3 * 4 * (4 * 32 * kRow + dense / 2)));
}

TEST_CASE("tables on servers: deterministic, and errors at their keys", "[run][recommendation]") {
  const TrainingReport a = run::run_scenario(servers_scenario()).report;
  const TrainingReport b = run::run_scenario(servers_scenario()).report;
  CHECK(to_json(a).dump() == to_json(b).dump());
  const auto message = [](const std::vector<std::string>& overrides) {
    try {
      run::run_scenario(servers_scenario(overrides));
    } catch (const InputError& e) {
      return e.key() + ": " + e.message();
    }
    return std::string("no error");
  };
  CHECK_THAT(message({"training.strategy=async"}),
             Catch::Contains("training.strategy: strategy 'async' needs the dense part on the servers too"));
  CHECK_THAT(message({"training.parameter_servers.dense=servers", "training.parameter_servers.embeddings=async"}),
             Catch::Contains("training.parameter_servers.embeddings: asynchronous tables beside"));
  const Scenario resnet = parse_scenario(R"(
name: resnet-ps
cluster: {gpu: A100-SXM4-80GB, topology: "switch:n=4,bw=100Gbps,lat=5us"}
model: {name: resnet50, batch_per_gpu: 8}
training: {strategy: sync, communication: parameter_server, parameter_servers: {dense: servers}}
)",
                                         "resnet-ps.yaml");
  CHECK_THROWS_WITH(run::run_scenario(resnet), Catch::Contains("the model has none"));
  CHECK_THROWS_WITH(servers_scenario({"training.parameter_servers.dense=nowhere"}),
                    Catch::Contains("training.parameter_servers.dense"));
}
