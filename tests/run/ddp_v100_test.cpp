// End to end against PyTorch's DDP benchmark on DGX-1 V100 (docs/accuracy.md): with the one-GPU step measured and
// DDP's measured one-GPU overhead, every iteration within 5% of the published times.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

TEST_CASE("PyTorch DDP, ResNet-50 on DGX-1 V100: iteration times within 5% at 2 to 16 GPUs", "[ddp_v100]") {
  // benchmarks/distributed/ddp/README.md: seconds per iteration with DDP.
  const std::pair<int, double> published[] = {{2, 0.103}, {4, 0.103}, {8, 0.104}, {16, 0.104}};
  for (const auto& [gpus, seconds] : published) {
    INFO(gpus << " GPUs");
    const Scenario s = load_scenario(fmt::format("{}/ddp-v100/ddp-v100-{}.yaml", SYNCSIM_RUN_DATA_DIR, gpus));
    const TrainingReport r = run::run_scenario(s).report;
    CHECK(r.workers == gpus);
    const double predicted = r.iteration_mean.seconds();
    CHECK(std::abs(predicted - seconds) / seconds <= 0.05);
    // The overhead is reported as such, and the communication hides under backward on this cluster.
    CHECK(r.framework_overhead_share == Approx(0.003 / predicted).epsilon(1e-6));
    CHECK(r.exposed_communication_share < 0.01);
  }
}
