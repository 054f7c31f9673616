// A recommendation model's tables on parameter servers end to end (recommendation_servers_run.cpp): the sparse bytes
// per worker and on the server's link in closed form, the dense part over AllReduce or the servers, memory per
// GPU, determinism, and the errors at their keys.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "syncsim/core/input_error.hpp"
#include "syncsim/run/recommendation_memory.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/training/training_report.hpp"
#include "tiny_dlrm_servers.hpp"

using namespace syncsim;

namespace {

using test::group;
using test::servers_scenario;

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

TEST_CASE("tables on servers: syncsim memory says where they live", "[run][recommendation]") {
  const auto m = run::scenario_recommendation_memory(servers_scenario());
  REQUIRE(m);
  REQUIRE(m->servers);
  CHECK(m->tables.empty());
  CHECK(m->servers->count == 1);
  CHECK(m->servers->host == "cpu");
  REQUIRE(m->servers->tables.size() == 4);
  // Each table: 100,000 rows of 16 fp32 weights and row-wise Adagrad's one FP32 a row: 100,000 x (64 + 4) bytes,
  // all four on the one server.
  CHECK(m->servers->tables[0].on_servers.value == 100'000 * (16 * 4 + 4));
  CHECK(m->servers->per_server.value == 4 * 100'000 * (16 * 4 + 4));
  CHECK(m->servers->tables[0].rows_pulled == Approx(32));
  // A GPU holds the 4 x 32 rows its batch pulled and their gradients: 2 x 4 x 32 x 16 x 4 bytes, beside the dense part.
  CHECK(m->servers->rows_on_gpu.value == 2 * 4 * 32 * 16 * 4);
  const TrainingReport r = run::run_scenario(servers_scenario()).report;
  CHECK(r.memory.total == m->report.total);
  CHECK(run::scenario_memory(servers_scenario()).total == m->report.total);
}
