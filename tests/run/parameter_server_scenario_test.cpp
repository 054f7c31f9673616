// Parameter-server strategies end to end (run_scenario): the synchronous closed form and its growth with N and
// k, stragglers under sync and async, staleness, the SSP bound, failures under async, hybrid groups.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "syncsim/core/input_error.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/trace/chrome_trace_writer.hpp"
#include "worker_compute.hpp"

namespace syncsim {
using worker_compute::compute_per_iteration;
namespace {

// resnet50 on one 100 Gbps switch, no overlap (the whole gradient is one message): the push starts when the
// compute ends, so one round is C + 2 alpha + 2 N S / (k B) + N a exactly (parameter_server_run.hpp).
constexpr const char* kPsScenario = R"(
name: ps
seed: 7
cluster:
  gpu: A100-SXM4-80GB
  topology: "switch:n=16,bw=100Gbps,lat=5us"
model: {name: resnet50, batch_per_gpu: 32, precision: fp16}
training:
  strategy: sync
  communication: parameter_server
  parameter_servers: {count: 1, apply_time: 200us}
  overlap: false
  iterations: 3
)";

TrainingReport run_ps(std::vector<std::string> overrides) {
  return run::run_scenario(parse_scenario(kPsScenario, "ps.yaml", overrides)).report;
}

// Model bytes S: all buckets (without overlap they go as one message).
double model_bytes(const TrainingReport& r) {
  double total = 0;
  for (const BucketReport& b : r.buckets) total += static_cast<double>(b.bytes.value);
  return total;
}

TEST_CASE("sync parameter server: one round matches the closed form, linear in N") {
  const double link = 100e9 / 8;  // bytes/s
  const double alpha = 10e-6;     // GPU -> switch -> server: two 5 us links
  const double apply = 200e-6;
  for (const int n : {2, 4, 8, 12}) {
    const TrainingReport r = run_ps({fmt::format("cluster.workers={}", n)});
    const double s = model_bytes(r);
    const double expected = compute_per_iteration(r).seconds() + 2 * alpha + 2 * n * s / link + n * apply;
    INFO("N = " << n << ", S = " << s);
    CHECK(r.iteration_mean.seconds() == Approx(expected).epsilon(1e-6));
    CHECK(r.iteration_p99 == r.iteration_p50);  // no jitter: every round the same
    CHECK_FALSE(r.staleness.has_value());
    // The server's link is the busiest, carrying N S in each direction per round.
    REQUIRE_FALSE(r.busiest_links.empty());
    const LinkReport& top = r.busiest_links.front();
    CHECK((top.from == "ps0" || top.to == "ps0"));
    CHECK(top.bytes == Approx(n * s * static_cast<double>(r.iterations)).epsilon(1e-9));
  }
}

TEST_CASE("sync parameter server: k shards divide the server time by k") {
  const auto communication = [](int servers) {
    std::string count = "training.parameter_servers.count=";
    count += std::to_string(servers);
    const TrainingReport r = run_ps({"cluster.workers=8", count, "training.parameter_servers.apply_time=0s"});
    return r.iteration_mean.seconds() - compute_per_iteration(r).seconds();
  };
  const double one = communication(1);
  const double four = communication(4);
  CHECK(four == Approx(2 * 10e-6 + (one - 2 * 10e-6) / 4).epsilon(1e-6));
}

TEST_CASE("colocated servers: worker j hosts shard j, and no dedicated node appears") {
  const TrainingReport r = run_ps({"cluster.workers=4", "training.parameter_servers.placement=colocated",
                                   "training.parameter_servers.count=4", "training.parameter_servers.apply_time=0s"});
  for (const LinkReport& link : r.busiest_links) CHECK(link.from.rfind("ps", 0) != 0);
  // Direct AllReduce: each worker's link carries 3 S/4 each way, so communication is 2 alpha + 2 (N-1) S/(N B).
  const double s = model_bytes(r);
  CHECK(r.iteration_mean.seconds() - compute_per_iteration(r).seconds() ==
        Approx(2 * 10e-6 + 2 * 3 * s / 4 / (100e9 / 8)).epsilon(1e-6));
}

TEST_CASE("one rank 1.5x slower: sync waits for it, async does not") {
  const std::vector<std::string> fast_network = {"cluster.topology.bw=10Tbps", "cluster.workers=8",
                                                 "training.iterations=12", "training.overlap=true",
                                                 "training.parameter_servers.apply_time=0s"};
  std::vector<std::string> slow = fast_network;
  slow.push_back("stragglers.slow=[{rank: 3, factor: 1.5}]");

  const TrainingReport sync = run_ps(slow);
  const SimTime normal_compute = compute_per_iteration(run_ps(fast_network));
  CHECK(sync.iteration_mean.seconds() >= 1.5 * normal_compute.seconds());
  CHECK(sync.per_worker.at(0).straggler_wait > SimTime::zero());

  std::vector<std::string> async_base = fast_network;
  async_base.push_back("training.strategy=async");
  std::vector<std::string> async_slow = slow;
  async_slow.push_back("training.strategy=async");
  const TrainingReport base = run_ps(async_base);
  const TrainingReport with_slow = run_ps(async_slow);
  // A normal rank's own pace (its updates per second while it runs) is unchanged by the slow one.
  for (const int rank : {0, 5}) {
    const auto pace = [rank](const TrainingReport& r) {
      const WorkerReport& w = r.per_worker.at(rank);
      return static_cast<double>(*w.updates) / (r.total - w.straggler_wait).seconds();
    };
    INFO("rank " << rank);
    CHECK(pace(with_slow) == Approx(pace(base)).epsilon(0.01));
  }
  CHECK(*with_slow.per_worker.at(3).updates < *with_slow.per_worker.at(0).updates);
  // Async does all N x I updates between the workers.
  std::int64_t updates = 0;
  for (const WorkerReport& w : with_slow.per_worker) updates += *w.updates;
  CHECK(updates == 8 * 12);
}

TEST_CASE("async staleness: N identical workers each see the other N-1 updates, SSP bounds the lead") {
  const TrainingReport r = run_ps({"cluster.workers=6", "training.strategy=async", "training.iterations=10"});
  REQUIRE(r.staleness.has_value());
  CHECK(r.staleness->updates == 60);
  CHECK(r.staleness->max == 5);
  std::int64_t counted = 0;
  for (const std::int64_t h : r.staleness->histogram) counted += h;
  CHECK(counted == r.staleness->updates);

  const std::vector<std::string> slow = {"cluster.workers=4", "training.strategy=ssp", "training.staleness_bound=1",
                                         "training.iterations=10", "stragglers.slow=[{rank: 0, factor: 3}]"};
  const TrainingReport ssp = run_ps(slow);
  // Nobody may finish more than bound + 1 updates ahead of the slowest while it still runs.
  std::int64_t least = 1 << 30;
  std::int64_t most = 0;
  for (const WorkerReport& w : ssp.per_worker) {
    least = std::min(least, *w.updates);
    most = std::max(most, *w.updates);
  }
  CHECK(most - least <= 2);
  CHECK(ssp.per_worker.at(1).straggler_wait > SimTime::zero());
}

TEST_CASE("async with a worker failure: the others continue and the lost update is redone") {
  const TrainingReport r = run_ps({"cluster.workers=4", "training.strategy=async", "training.iterations=10",
                                   "faults=[{at: 50ms, kind: worker_down, rank: 2}]"});
  REQUIRE(r.faults.size() == 1);
  CHECK(r.faults[0].target == "rank 2");
  CHECK(r.faults[0].policy == FaultPolicy::continue_without);
  CHECK(r.faults[0].workers_after == 3);
  CHECK(r.faults[0].lost_work > SimTime::zero());
  std::int64_t updates = 0;
  for (const WorkerReport& w : r.per_worker) updates += *w.updates;
  CHECK(updates == 40);
  CHECK(*r.per_worker.at(2).updates < *r.per_worker.at(0).updates);
}

TEST_CASE("parameter-server runs are deterministic, and their trace shows servers and link utilization") {
  const std::vector<std::string> o = {"cluster.workers=8", "training.strategy=async",
                                      "stragglers.jitter={distribution: lognormal, sigma: 0.2}"};
  const auto once = [&] {
    const run::RunOutput out = run::run_scenario(parse_scenario(kPsScenario, "ps.yaml", o));
    std::ostringstream trace;
    trace::write_chrome_trace(out.trace, trace);
    return std::make_pair(to_json(out.report).dump(), trace.str());
  };
  const auto first = once();
  CHECK(first == once());
  const nlohmann::json trace = nlohmann::json::parse(first.second);
  std::size_t counters = 0;
  std::size_t applies = 0;
  for (const auto& event : trace.at("traceEvents")) {
    REQUIRE(event.contains("ph"));
    REQUIRE(event.contains("pid"));
    if (event["ph"] == "C") {
      ++counters;
      const double value = event.at("args").at("value");
      CHECK(value >= 0);
      CHECK(value <= 1);  // a link never carries more than its bandwidth
    }
    if (event["ph"] == "X" && event["name"] == "apply") ++applies;
  }
  CHECK(counters > 0);
  CHECK(applies > 0);
}

TEST_CASE("bad parameter-server setups are located errors") {
  CHECK_THROWS_WITH(run_ps({"training.parameter_servers.placement=colocated", "training.parameter_servers.count=20",
                            "cluster.workers=4"}),
                    Catch::Contains("training.parameter_servers.count") && Catch::Contains("colocated"));
  CHECK_THROWS_WITH(run_ps({"faults=[{at: 1s, kind: worker_down, rank: 1}]"}),
                    Catch::Contains("faults[0]") && Catch::Contains("not simulated yet"));
}

}  // namespace
}  // namespace syncsim
