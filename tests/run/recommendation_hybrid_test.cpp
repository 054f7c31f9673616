// Hybrid consistency on parameter servers (recommendation_servers_run.cpp, parameter_servers.embeddings: async):
// the dense part synchronous over AllReduce, the tables one iteration stale. What the mechanism implies, asserted
// without a number fitted to it: the iteration is the longer of the worker's own work and the exchange instead of
// their sum; a read row misses W x read_touched_share updates per table; and on the convergence proxy, whose input
// layer is read one update stale, the loss curve rises more often than the synchronous one, seed by seed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "syncsim/run/run_scenario.hpp"
#include "syncsim/training/training_report.hpp"
#include "tiny_dlrm_servers.hpp"

using namespace syncsim;

namespace {

// recommendation_servers_test.cpp's model for 200 iterations; the proxy: logistic regression, 4 samples per
// worker and step, target loss 0.6.
TrainingReport hybrid_run(const std::string& embeddings, std::vector<std::string> overrides = {}) {
  for (const char* key : {"training.iterations=200", "convergence.problem=logistic", "convergence.batch_per_worker=4",
                          "convergence.target_loss=0.6", "convergence.eval_every=2", "convergence.learning_rate=0.5"}) {
    overrides.insert(overrides.begin(), key);
  }
  overrides.push_back("training.parameter_servers.embeddings=" + embeddings);
  return run::run_scenario(test::servers_scenario(overrides)).report;
}

SimTime exposed(const TrainingReport& r, const std::string& name) {
  return test::group(r, name).exposed;
}

// How much the held-out loss rose along the curve: the sum of its increases between evaluations.
double total_rise(const TrainingReport& r) {
  double rise = 0;
  const auto& curve = r.convergence->curve;
  for (std::size_t i = 1; i < curve.size(); ++i) rise += std::max(0.0, curve[i].loss - curve[i - 1].loss);
  return rise;
}

}  // namespace

TEST_CASE("hybrid: the exchange overlaps the next batch: max(D, X) instead of D + X", "[run][recommendation]") {
  const TrainingReport sync = hybrid_run("sync");
  const TrainingReport async = hybrid_run("async");
  // Synchronous: a round is the worker's own work D, then the exchange X (push, apply, pull) it waits on.
  const SimTime x = exposed(sync, "embedding");
  const SimTime d = sync.iteration_mean - x;
  REQUIRE(x > SimTime::zero());
  CHECK(async.iteration_mean == std::max(d, x));
  CHECK(async.iteration_mean < sync.iteration_mean);
  CHECK(async.samples_per_second > sync.samples_per_second);
  // The same bytes either way: only when they move changes.
  REQUIRE_FALSE(sync.busiest_links.empty());
  CHECK(async.busiest_links.front().bytes == sync.busiest_links.front().bytes);
}

TEST_CASE("hybrid: staleness per table from the access distribution", "[run][recommendation]") {
  const TrainingReport async = hybrid_run("async");
  REQUIRE(async.table_staleness.size() == 4);
  // A batch touches 32 of the 100,000 rows uniformly: a read row was touched by another batch with chance
  // 32 / 100,000, and each of the 4 workers' batches of the previous iteration is missed.
  for (const TableStaleness& t : async.table_staleness) {
    CHECK(t.iterations == 1);
    CHECK(t.missed_updates == Approx(4 * 32 / 100000.0));
  }
  // A Zipf table's reads fall on hot rows that every batch updates: far staler than its distinct rows say.
  const TrainingReport zipf = hybrid_run("async", {"model.recommendation.tables[0]={name: t, rows: 100000, dim: 16, "
                                                   "zipf: 1.2, repeat: 4}"});
  CHECK(zipf.table_staleness.front().missed_updates > 100 * async.table_staleness.front().missed_updates);
  CHECK(hybrid_run("sync").table_staleness.empty());
}

TEST_CASE("hybrid: time to target against sync, and a noisier loss curve over seeds", "[run][recommendation]") {
  // At the proxy's rate 0.5 one update of staleness costs next to nothing: the faster iterations reach the target
  // first. At rate 2 the stale input layer overshoots: the loss rises more, seed after seed, and the target comes
  // later or not at all.
  std::vector<double> sync_times;
  std::vector<double> async_times;
  for (int seed = 1; seed <= 5; ++seed) {
    const std::string s = "seed=" + std::to_string(seed);
    const TrainingReport sync = hybrid_run("sync", {s});
    const TrainingReport async = hybrid_run("async", {s});
    if (sync.convergence->time_to_target && async.convergence->time_to_target) {
      CHECK(*async.convergence->time_to_target < *sync.convergence->time_to_target);
    }
    const TrainingReport fast_sync = hybrid_run("sync", {s, "convergence.learning_rate=2"});
    const TrainingReport fast_async = hybrid_run("async", {s, "convergence.learning_rate=2"});
    CHECK(total_rise(fast_async) > total_rise(fast_sync));
    if (fast_sync.convergence->time_to_target) sync_times.push_back(fast_sync.convergence->time_to_target->seconds());
    if (fast_async.convergence->time_to_target) {
      async_times.push_back(fast_async.convergence->time_to_target->seconds());
    }
  }
  // The spread over seeds: the asynchronous run's slowest time to target is later than the synchronous one's.
  REQUIRE_FALSE(sync_times.empty());
  REQUIRE_FALSE(async_times.empty());
  CHECK(*std::max_element(async_times.begin(), async_times.end()) >
        *std::max_element(sync_times.begin(), sync_times.end()));
}
