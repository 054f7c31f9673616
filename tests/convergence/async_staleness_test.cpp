// examples/async-staleness.yaml's conclusion, as its header states it: more asynchronous workers give more
// samples per second and staler updates, and past 16 workers the target loss is reached later or never.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <string>

#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim {
namespace {

TrainingReport run_with_workers(int workers) {
  const std::string file = std::string(SYNCSIM_EXAMPLES_DIR "/async-staleness.yaml");
  return run::run_scenario(load_scenario(file, {fmt::format("cluster.topology.n={}", workers)})).report;
}

TEST_CASE("async-staleness: past 16 workers, higher throughput reaches the target loss later, then never") {
  const TrainingReport w16 = run_with_workers(16);
  const TrainingReport w32 = run_with_workers(32);
  const TrainingReport w64 = run_with_workers(64);
  REQUIRE(w16.convergence.has_value());
  REQUIRE(w16.staleness.has_value());

  // Staler with every doubling: an update lands after about N - 1 others.
  CHECK(w16.staleness->mean < w32.staleness->mean);
  CHECK(w32.staleness->mean < w64.staleness->mean);
  CHECK(w32.staleness->mean > 24);

  // 32 workers: twice the samples per second of 16, yet the target comes later.
  CHECK(w32.samples_per_second > 1.5 * w16.samples_per_second);
  REQUIRE(w16.convergence->time_to_target.has_value());
  REQUIRE(w32.convergence->time_to_target.has_value());
  CHECK(*w32.convergence->time_to_target > *w16.convergence->time_to_target);
  // It also took more updates: each one bought less progress.
  CHECK(*w32.convergence->updates_to_target > *w16.convergence->updates_to_target);

  // 64 workers: still more samples per second than 16, and the target is never reached.
  CHECK(w64.samples_per_second > w16.samples_per_second);
  CHECK_FALSE(w64.convergence->time_to_target.has_value());
  CHECK(w64.convergence->best_loss > *w16.convergence->target_loss);
}

}  // namespace
}  // namespace syncsim
