// run_scenario's progress and cancellation (RunProgress): every engine reports each iteration or update in
// order, up to the total it announced, and a stop request ends the run with RunCancelled.
#include <catch2/catch.hpp>

#include <atomic>
#include <string>
#include <vector>

#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim {
namespace {

Scenario example(const std::vector<std::string>& overrides) {
  return load_scenario(std::string(SYNCSIM_EXAMPLES_DIR "/strategies-64gpu-stragglers.yaml"), overrides);
}

TEST_CASE("run progress: each engine counts up to its total, and reporting changes nothing in the result") {
  for (const std::string strategy : {"sync", "local_sgd", "async", "hybrid"}) {
    const Scenario s = example({"training.strategy=" + strategy, "training.iterations=6"});
    std::vector<std::int64_t> done;
    std::int64_t total = 0;
    run::RunProgress progress;
    progress.on_iteration = [&](std::int64_t d, std::int64_t t) {
      done.push_back(d);
      total = t;
    };
    const run::RunOutput with = run::run_scenario(s, &progress);
    INFO(strategy);
    REQUIRE_FALSE(done.empty());
    for (std::size_t i = 0; i < done.size(); ++i) CHECK(done[i] == static_cast<std::int64_t>(i) + 1);
    CHECK(done.back() == total);
    CHECK(to_json(with.report) == to_json(run::run_scenario(s).report));
  }
}

TEST_CASE("run progress: a stop request ends the run at the next iteration with RunCancelled") {
  for (const std::string strategy : {"sync", "async"}) {
    const Scenario s = example({"training.strategy=" + strategy, "training.iterations=50"});
    std::atomic<bool> stop{false};
    std::int64_t calls = 0;
    run::RunProgress progress;
    progress.stop = &stop;
    progress.on_iteration = [&](std::int64_t done, std::int64_t) {
      ++calls;
      if (done == 3) stop = true;
    };
    INFO(strategy);
    CHECK_THROWS_AS(run::run_scenario(s, &progress), run::RunCancelled);
    CHECK(calls == 3);
  }
}

}  // namespace
}  // namespace syncsim
