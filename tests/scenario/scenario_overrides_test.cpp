// `--set key.path=value`: applied to the parsed file before validation, so an override is checked like the file.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {
const std::filesystem::path kOverridesData = SYNCSIM_SCENARIO_DATA;

constexpr const char* kOverridesBase = R"(cluster:
  gpu: A100-SXM4-80GB
  topology: {kind: dgx, nodes: 4, gpus: 8}
model: {name: resnet50, batch_per_gpu: 32}
training: {iterations: 20}
)";

Scenario with(const std::vector<std::string>& overrides, const char* yaml = kOverridesBase) {
  return parse_scenario(yaml, "base.yaml", overrides);
}

std::string override_error_of(const std::vector<std::string>& overrides, const char* yaml = kOverridesBase) {
  try {
    with(overrides, yaml);
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("overrides: --set replaces values the file gives", "[scenario][set]") {
  const Scenario s = with({"training.iterations=5", "cluster.topology.nodes=8", "model.name=gpt2",
                           "training.bucket_size=50MB", "training.overlap=false"});
  CHECK(s.training.iterations == 5);
  CHECK(s.cluster.topology.params.at("nodes") == "8");
  CHECK(s.model.name.value == "gpt2");
  CHECK(s.training.bucket_size == Bytes{50'000'000});
  CHECK_FALSE(s.training.overlap);
  // An overridden value is located at --set, so later errors about it name the flag.
  CHECK(s.model.name.where.source == "--set");
  CHECK(s.model.name.key == "model.name");
  CHECK(s.cluster.topology.param_locations.at("nodes").source == "--set");
  CHECK(s.cluster.topology.param_locations.at("gpus").source == "base.yaml");
}

TEST_CASE("overrides: --set creates keys and whole sections, lists included", "[scenario][set]") {
  const Scenario s =
      with({"stragglers.slow=[{rank: 3, factor: 1.5}]", "seed=9", "faults=[{at: 2s, kind: worker_down, rank: 1}]",
            "checkpoint.interval=50", "cluster.workers=16"});
  REQUIRE(s.stragglers.slow.size() == 1);
  CHECK(s.stragglers.slow[0].rank.value == 3);
  CHECK(s.stragglers.slow[0].factor == 1.5);
  CHECK(s.seed == 9);
  REQUIRE(s.faults.size() == 1);
  CHECK(s.checkpoint.every_iterations == 50);
  CHECK(s.cluster.workers->value == 16);
  // Flow mappings work too, and a later override wins.
  const Scenario t = with({"training={strategy: ssp, staleness_bound: 2}", "training.staleness_bound=4"});
  CHECK(t.training.strategy.value == StrategyKind::ssp);
  CHECK(t.training.staleness_bound->value == 4);
  CHECK(t.training.iterations == 10);  // the whole training mapping was replaced
}

TEST_CASE("overrides: --set reaches list items and the fields of a topology spec string", "[scenario][set]") {
  const Scenario s = load_scenario(kOverridesData / "scenarios_doc_example.yaml",
                                   {"faults[0].at=3s", "stragglers.slow.0.factor=2", "calibration="});
  CHECK(s.faults[0].at == SimTime::from_seconds(3));
  CHECK(s.stragglers.slow[0].factor == 2.0);
  CHECK_FALSE(s.calibration);  // an empty value unsets
  CHECK(s.training.latency_model.value == LatencySource::nccl);

  const char* spec_string =
      "cluster: {gpu: A100-SXM4-80GB, topology: \"dgx:nodes=4,gpus=8\"}\nmodel: {name: x, batch_per_gpu: 1}\n";
  const Scenario t = with({"cluster.topology.nodes=2", "cluster.topology.nic_bw=400Gbps"}, spec_string);
  CHECK(t.cluster.topology.kind == "dgx");
  CHECK(t.cluster.topology.params.at("nodes") == "2");
  CHECK(t.cluster.topology.params.at("nic_bw") == "400Gbps");
  CHECK(t.cluster.topology.param_locations.at("gpus").line == 1);  // still the file's position
}

TEST_CASE("overrides: --set on an empty document builds the scenario from overrides alone", "[scenario][set]") {
  const Scenario s = with({"cluster.gpu=H100-SXM", "cluster.topology=switch:n=4,bw=100Gbps,lat=1us",
                           "model.name=bert-large", "model.batch_per_gpu=8"},
                          "");
  CHECK(s.cluster.topology.kind == "switch");
  CHECK(s.model.name.value == "bert-large");
}

TEST_CASE("overrides: --set errors name --set and the key path", "[scenario][set]") {
  using Catch::StartsWith;
  CHECK_THAT(override_error_of({"training.iteratons=5"}),
             StartsWith("--set: training.iteratons: unknown key 'iteratons' (did you mean 'iterations'?)"));
  CHECK_THAT(override_error_of({"training.iterations=abc"}),
             StartsWith("--set: training.iterations: expected a whole number"));
  CHECK_THAT(
      override_error_of({"training.bucket_size=25"}),
      StartsWith("--set: training.bucket_size: expected a size with a unit like 25MB or 64KiB, got '25' (a number "
                 "without its unit)"));
  CHECK_THAT(override_error_of({"stragglers.slow=[{rank: 3, factor: 1.5}"}),
             StartsWith("--set: stragglers.slow: invalid YAML: "));
  CHECK_THAT(override_error_of({"iterations"}), StartsWith("--set: expected key.path=value, got 'iterations'"));
  CHECK_THAT(override_error_of({"=5"}), StartsWith("--set: expected key.path=value, got '=5'"));
  CHECK_THAT(override_error_of({"training..iterations=5"}),
             StartsWith("--set: training..iterations: empty key in the path"));
  CHECK_THAT(override_error_of({"faults[x].at=1s"}),
             StartsWith("--set: faults[x].at: expected a list index like [0] after a key"));
  CHECK_THAT(override_error_of({"model.name.first=x"}),
             StartsWith("--set: model.name.first: 'model.name' is 'resnet50', not a mapping"));
  CHECK_THAT(override_error_of({"faults[0].at=1s"}), StartsWith("--set: faults[0]: 'faults' is nothing, not a list"));
  CHECK_THAT(override_error_of({"stragglers.slow[1].factor=2", "stragglers.slow=[{rank: 1, factor: 3}]"}),
             StartsWith("--set: stragglers.slow[1]: 'stragglers.slow' is nothing, not a list"));
  CHECK_THAT(override_error_of({"stragglers.slow=[{rank: 1, factor: 3}]", "stragglers.slow[1].factor=2"}),
             StartsWith("--set: stragglers.slow[1]: 'stragglers.slow' has 1 item"));
  CHECK_THAT(override_error_of({"cluster.workers=64"}), StartsWith("--set: cluster.workers: 64 workers do not fit"));
  CHECK_THAT(override_error_of({"stragglers.slow=[{rank: 40, factor: 2}]"}),
             StartsWith("--set: stragglers.slow[0].rank: rank 40 does not exist: the topology has 32 GPUs"));
  CHECK_THAT(override_error_of({"cluster.topology.nodez=3"}), StartsWith("--set: cluster.topology.nodez: "));
}
