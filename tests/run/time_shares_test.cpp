// Time shares that add up (training_report.hpp): every example and every LLM validation scenario, and the
// strategies the examples do not run (parameter servers, async, ssp, hybrid, local SGD, sharding, activation
// checkpointing under a layout), split each worker's time into shares that are never negative and sum to 1.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/jobs_config.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

const std::filesystem::path kExamples = SYNCSIM_EXAMPLES_DIR;
const std::filesystem::path kLlm = SYNCSIM_LLM_SCENARIOS;

std::vector<std::filesystem::path> scenarios_in(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    // prices-*.yaml are price files for `syncsim plan`, not scenarios.
    if (entry.path().extension() != ".yaml" || entry.path().stem().string().starts_with("prices-")) continue;
    // A scenario with several jobs reports each job's slowdown, not one job's shares (docs/jobs.md).
    if (!load_jobs_scenario(entry.path())) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void check_shares(const std::filesystem::path& file, const std::vector<std::string>& overrides = {}) {
  const TrainingReport r = run::run_scenario(load_scenario(file, overrides)).report;
  INFO(file.filename().string() << (overrides.empty() ? "" : " with " + overrides.front()));
  const std::pair<const char*, double> leaves[] = {{"compute", r.compute_share},
                                                   {"recompute", r.recompute_share},
                                                   {"pipeline_bubble", r.pipeline_bubble_share},
                                                   {"exposed_tensor", r.exposed_tensor_share},
                                                   {"exposed_context", r.exposed_context_share},
                                                   {"exposed_pipeline", r.exposed_pipeline_share},
                                                   {"exposed_data", r.exposed_data_share},
                                                   {"exposed_expert", r.exposed_expert_share},
                                                   {"optimizer", r.optimizer_share},
                                                   {"framework_overhead", r.framework_overhead_share},
                                                   {"overlap_interference", r.overlap_interference_share},
                                                   {"idle", r.idle_share}};
  double sum = 0;
  for (const auto& [name, share] : leaves) {
    INFO(name);
    CHECK(share >= 0);
    sum += share;
  }
  CHECK(std::abs(sum - 1) <= 1e-9);
  CHECK(std::abs(sum_of_shares(r) - 1) <= 1e-9);
  CHECK(r.exposed_communication_share ==
        Approx(r.exposed_tensor_share + r.exposed_context_share + r.exposed_pipeline_share + r.exposed_data_share +
               r.exposed_expert_share));
}

}  // namespace

TEST_CASE("time shares: every example's are non-negative and sum to one", "[shares]") {
  for (const auto& file : scenarios_in(kExamples)) check_shares(file);
}

TEST_CASE("time shares: every LLM validation scenario's are non-negative and sum to one", "[shares]") {
  for (const auto& file : scenarios_in(kLlm)) check_shares(file);
}

TEST_CASE("time shares: each strategy's and engine's sum to one", "[shares]") {
  const auto stragglers = kExamples / "strategies-64gpu-stragglers.yaml";
  for (const char* strategy : {"async", "ssp", "hybrid", "local_sgd"}) {
    check_shares(stragglers, {std::string("training.strategy=") + strategy});
  }
  check_shares(kExamples / "allreduce-vs-parameter-servers.yaml",
               {"training.communication=parameter_server", "training.parameter_servers.count=2"});
  check_shares(kExamples / "llama7b-sharding.yaml", {"parallelism.sharding=full"});
  // Full checkpointing under a pipeline, and beside tensor parallelism without one (FSDP + TP).
  check_shares(kExamples / "llama3-70b-layouts.yaml", {"parallelism.activation_checkpointing=full"});
  check_shares(kExamples / "llama3-70b-layouts.yaml",
               {"parallelism.pipeline=1", "parallelism.sharding=full", "parallelism.activation_checkpointing=full",
                "model.micro_batches=1", "model.batch_per_gpu=4"});
}

TEST_CASE("time shares: full checkpointing moves the recomputed forward out of compute", "[shares]") {
  const auto file = kExamples / "llama3-70b-layouts.yaml";
  const TrainingReport plain = run::run_scenario(load_scenario(file, {})).report;
  const TrainingReport full =
      run::run_scenario(load_scenario(file, {"parallelism.activation_checkpointing=full"})).report;
  CHECK(plain.recompute_share == 0);
  CHECK(full.recompute_share > 0);
  // Backward is about twice forward, so the forward run again is about a quarter of forward + backward + forward.
  CHECK(full.recompute_share / (full.compute_share + full.recompute_share) == Approx(0.25).margin(0.05));
}

TEST_CASE("time shares: a pipeline's bubble and its transfers are apart, and a layout's kinds add up", "[shares]") {
  const TrainingReport r = run::run_scenario(load_scenario(kExamples / "llama3-70b-layouts.yaml", {})).report;
  REQUIRE(r.layout);
  CHECK(r.pipeline_bubble_share > 0);
  CHECK(r.layout->bubble_share == r.pipeline_bubble_share);
  CHECK(r.exposed_tensor_share > 0);
}
