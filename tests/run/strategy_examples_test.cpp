// The strategy examples' conclusions, as their header comments state them.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim {
namespace {

TrainingReport run_strategy_example(const std::string& file, const std::vector<std::string>& overrides = {}) {
  return run::run_scenario(load_scenario(fmt::format("{}/{}", SYNCSIM_EXAMPLES_DIR, file), overrides)).report;
}

TEST_CASE("allreduce-vs-parameter-servers: one server is the bottleneck, shards help, AllReduce wins") {
  const std::string file = "allreduce-vs-parameter-servers.yaml";
  const TrainingReport allreduce = run_strategy_example(file);
  const TrainingReport one = run_strategy_example(file, {"training.communication=parameter_server"});
  const TrainingReport four =
      run_strategy_example(file, {"training.communication=parameter_server", "training.parameter_servers.count=4"});
  CHECK(one.samples_per_second < four.samples_per_second);
  CHECK(four.samples_per_second < allreduce.samples_per_second);
  CHECK(one.samples_per_second < 0.5 * allreduce.samples_per_second);
  REQUIRE_FALSE(one.busiest_links.empty());
  const LinkReport& top = one.busiest_links.front();
  CHECK((top.from == "ps0" || top.to == "ps0"));
  // The server link carries N S each way per step: 16 workers' gradients in, 16 copies of the model out.
  double model = 0;
  for (const BucketReport& b : one.buckets) model += static_cast<double>(b.bytes.value);
  CHECK(top.bytes == Approx(16 * model * static_cast<double>(one.iterations)).epsilon(1e-9));
}

TEST_CASE("strategies-64gpu-stragglers: sync follows the slow GPU, async escapes it at a staleness cost") {
  const std::string file = "strategies-64gpu-stragglers.yaml";
  const TrainingReport sync = run_strategy_example(file);
  const TrainingReport async = run_strategy_example(file, {"training.strategy=async"});
  const TrainingReport ssp = run_strategy_example(file, {"training.strategy=ssp"});
  const TrainingReport hybrid = run_strategy_example(file, {"training.strategy=hybrid"});

  // Synchronous: every iteration waits for GPU 13, 1.5x slower than nominal.
  const double nominal_compute = sync.single_gpu_iteration.seconds();
  CHECK(sync.iteration_mean.seconds() >= 1.5 * 0.95 * nominal_compute);
  CHECK_FALSE(sync.staleness.has_value());

  // Asynchronous: more samples/s, but an update typically lands after dozens of others.
  CHECK(async.samples_per_second > sync.samples_per_second);
  REQUIRE(async.staleness.has_value());
  CHECK(async.staleness->mean > 32);  // more than half the other 63 workers' updates

  // SSP: the bound keeps the fast workers near the slow one, so it cannot beat async.
  CHECK(ssp.samples_per_second <= async.samples_per_second);

  // Local SGD averages every 4 steps: a quarter of the AllReduce traffic, still waiting for the slow GPU.
  const TrainingReport local = run_strategy_example(file, {"training.strategy=local_sgd"});
  CHECK(local.samples_per_second > sync.samples_per_second);
  CHECK_FALSE(local.staleness.has_value());

  // Hybrid: 8 groups exchange through the servers, so staleness is counted in groups, not GPUs.
  REQUIRE(hybrid.staleness.has_value());
  CHECK(hybrid.staleness->mean < async.staleness->mean / 4);
  CHECK(hybrid.staleness->updates == 8 * hybrid.iterations);
}

TEST_CASE("failure-checkpoint-restart: lost work since the checkpoint, or one iteration with elastic") {
  const std::string file = "failure-checkpoint-restart.yaml";
  const TrainingReport healthy = run_strategy_example(file, {"faults=[]"});
  const TrainingReport restart = run_strategy_example(file);
  const TrainingReport elastic =
      run_strategy_example(file, {"faults=[{at: 5s, kind: worker_down, rank: 13, policy: elastic}]"});
  const double t = healthy.iteration_mean.seconds();  // no jitter: every iteration the same
  REQUIRE(healthy.iteration_p99 == healthy.iteration_p50);
  const auto failed_in = static_cast<std::int64_t>(5.0 / t);  // the iteration under way at 5 s
  const std::int64_t checkpoint = failed_in / 100 * 100;      // the last checkpoint before it

  REQUIRE(restart.faults.size() == 1);
  const FaultReport& r = restart.faults[0];
  CHECK(r.iterations_lost == failed_in + 1 - checkpoint);  // the interrupted one included
  CHECK(r.lost_work.seconds() == Approx(5.0 - static_cast<double>(checkpoint) * t).epsilon(1e-9));
  CHECK(r.downtime == SimTime::from_seconds(90));
  CHECK(r.workers_after == 32);
  CHECK(restart.total.seconds() == Approx(400 * t + r.lost_work.seconds() + r.downtime.seconds()).epsilon(1e-9));
  // The 60 s restart is the bound, then the failure (30 s detection and the work lost); no straggler wait: the
  // workers' idle time is the fault's downtime.
  CHECK(restart.bottleneck.bound == "restarts");
  CHECK(restart.bottleneck.summary.find("restarting after failures") != std::string::npos);
  REQUIRE(restart.causes.size() >= 2);
  CHECK(restart.causes[1].cause == "failures");
  for (const CauseReport& c : restart.causes) CHECK(c.cause != "stragglers");

  REQUIRE(elastic.faults.size() == 1);
  const FaultReport& e = elastic.faults[0];
  CHECK(e.iterations_lost == 1);
  CHECK(e.lost_work.seconds() < t);
  CHECK(e.workers_after == 31);
  CHECK(elastic.lost_work < restart.lost_work);
}

TEST_CASE("degraded-link-window: one slow cable slows every iteration that starts in its window") {
  const std::string file = "degraded-link-window.yaml";
  const TrainingReport healthy = run_strategy_example(file, {"degraded_links=[]"});
  const TrainingReport degraded = run_strategy_example(file);
  REQUIRE(healthy.iteration_p99 == healthy.iteration_p50);  // no jitter
  CHECK(degraded.iteration_p50 == healthy.iteration_p50);   // most iterations are outside the window
  const double fast = healthy.iteration_p50.seconds();
  const double slow = degraded.iteration_p99.seconds();
  CHECK(slow > 1.5 * fast);
  // Inside the 2 s window iterations take `slow` instead of `fast`: the run loses about 2 s x (1 - fast/slow).
  const double lost = degraded.total.seconds() - healthy.total.seconds();
  CHECK(lost == Approx(2.0 * (1 - fast / slow)).epsilon(0.15));
}

}  // namespace
}  // namespace syncsim
