// Loading valid scenarios: the docs/scenarios.md example as written, the defaults of a minimal file, every section
// given inline, locations kept for later stages, and to_yaml's round trip.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {
const std::filesystem::path kLoaderData = SYNCSIM_SCENARIO_DATA;

constexpr const char* kMinimal = R"(cluster: {gpu: H100-SXM, topology: "switch:n=8,bw=100Gbps,lat=5us"}
model: {name: resnet50, batch_per_gpu: 32}
)";

std::string where(const SourceLocation& location) {
  return location.source + ":" + std::to_string(location.line) + ":" + std::to_string(location.column);
}
}  // namespace

TEST_CASE("the docs/scenarios.md example loads with the values it states", "[scenario]") {
  const std::filesystem::path file = kLoaderData / "scenarios_doc_example.yaml";
  const Scenario s = load_scenario(file);
  CHECK(s.name == "resnet50-dgx-a100-4nodes");
  CHECK(s.seed == 42);
  CHECK(s.cluster.gpu.name.value == "A100-SXM4-80GB");
  CHECK_FALSE(s.cluster.gpu.inline_spec);
  CHECK(s.cluster.topology.kind == "dgx");
  CHECK(s.cluster.topology.params.at("nodes") == "4");
  CHECK(s.cluster.topology.params.at("nvlink_bw") == "300GB/s");
  CHECK(s.cluster.topology.params.at("nic_bw") == "200Gbps");
  CHECK(s.cluster.topology.params.at("net_lat") == "2us");
  CHECK(s.cluster.topology.params.size() == 5);
  CHECK_FALSE(s.cluster.workers);
  CHECK(s.model.name.value == "resnet50");
  CHECK(s.model.layers.empty());
  CHECK(s.model.batch_per_gpu.value == 64);
  CHECK(s.model.precision.value == Precision::fp16);
  CHECK(s.training.strategy.value == StrategyKind::sync);
  CHECK(s.training.communication.value == Communication::allreduce);
  CHECK(s.training.algorithm.value == Algorithm::ring);
  CHECK_FALSE(s.training.any_algorithm);
  CHECK(s.training.bucket_size == Bytes{25'000'000});
  CHECK(s.training.overlap);
  CHECK(s.training.iterations == 20);
  CHECK(s.stragglers.jitter.distribution == JitterKind::lognormal);
  CHECK(s.stragglers.jitter.sigma == 0.05);
  REQUIRE(s.stragglers.slow.size() == 1);
  CHECK(s.stragglers.slow[0].rank.value == 3);
  CHECK(s.stragglers.slow[0].factor == 1.5);
  REQUIRE(s.faults.size() == 1);
  CHECK(s.faults[0].at == SimTime::from_seconds(2));
  CHECK(s.faults[0].kind == FaultKind::worker_down);
  CHECK(s.faults[0].rank->value == 5);
  CHECK(s.faults[0].policy.value == FaultPolicy::restart_from_checkpoint);
  // Relative paths are resolved against the scenario's directory.
  REQUIRE(s.calibration);
  CHECK(s.calibration->value == (kLoaderData / "cal.yaml").lexically_normal().string());
  // With a calibration file and no latency_model, the calibrated model is the default.
  CHECK(s.training.latency_model.value == LatencySource::calibrated);

  // Locations: 1-based, at the value, with the key path, for the stages that check names and ranks.
  CHECK(where(s.cluster.gpu.name.where) == file.string() + ":4:8");
  CHECK(s.cluster.gpu.name.key == "cluster.gpu");
  CHECK(where(s.model.name.where) == file.string() + ":6:15");
  CHECK(where(s.stragglers.slow[0].rank.where) == file.string() + ":14:76");
  CHECK(s.stragglers.slow[0].rank.key == "stragglers.slow[0].rank");
  CHECK(where(s.cluster.topology.param_locations.at("nodes")) == file.string() + ":5:32");
  CHECK(where(s.cluster.topology.location) == file.string() + ":5:20");
}

TEST_CASE("a minimal scenario gets the documented defaults", "[scenario]") {
  const Scenario s = parse_scenario(kMinimal, "runs/minimal.yaml");
  CHECK(s.name == "minimal");
  CHECK(s.source == "runs/minimal.yaml");
  CHECK(s.seed == 0);
  CHECK(s.model.precision.value == Precision::fp32);
  CHECK(s.model.optimizer.value == Optimizer::adam);
  CHECK(s.model.micro_batches == 1);
  CHECK(s.model.backward_factor == 2.0);
  CHECK(s.model.kernel_overhead == SimTime::from_us(5));
  CHECK_FALSE(s.model.efficiency);
  const TrainingConfig& t = s.training;
  CHECK(t.strategy.value == StrategyKind::sync);
  CHECK(t.communication.value == Communication::allreduce);
  CHECK_FALSE(t.algorithm.value);  // auto
  CHECK_FALSE(t.any_algorithm);
  CHECK_FALSE(t.channels);
  CHECK(t.latency_model.value == LatencySource::nccl);
  CHECK_FALSE(t.protocol);
  CHECK(t.bucket_size == Bytes{25'000'000});
  CHECK(t.overlap);
  CHECK(t.iterations == 10);
  CHECK(t.warmup_iterations == 0);
  CHECK(t.parameter_servers.count.value == 1);
  CHECK(t.parameter_servers.placement == ServerPlacement::dedicated);
  CHECK(s.stragglers.jitter.distribution == JitterKind::none);
  CHECK(s.stragglers.slow.empty());
  CHECK(s.degraded_links.empty());
  CHECK(s.faults.empty());
  CHECK_FALSE(s.checkpoint.every);
  CHECK_FALSE(s.checkpoint.every_iterations);
  CHECK(s.checkpoint.restart_cost == SimTime::zero());
  CHECK(s.detection_timeout == SimTime::from_seconds(30));
  CHECK_FALSE(s.calibration);
  // A default knows its key, so a later stage can still name it.
  CHECK(t.algorithm.key == "training.algorithm");
  CHECK(std::string(t.algorithm.error("hierarchical needs hosts").what()) ==
        "runs/minimal.yaml: training.algorithm: hierarchical needs hosts");
}

TEST_CASE("inline GPU and model, topology string, hybrid training, links, faults and checkpoints", "[scenario]") {
  const Scenario s = load_scenario(kLoaderData / "inline_hybrid.yaml");
  REQUIRE(s.cluster.gpu.inline_spec);
  const GpuSpec& gpu = *s.cluster.gpu.inline_spec;
  CHECK(s.cluster.gpu.name.value == "lab-gpu");
  CHECK(gpu.peaks.fp32 == 20e12);
  CHECK(gpu.peaks.fp16 == 300e12);
  CHECK_FALSE(gpu.peaks.bf16);
  CHECK(gpu.memory_bandwidth.bytes_per_second == 2e12);
  CHECK(gpu.memory == Bytes{48LL << 30});
  CHECK(s.cluster.topology.kind == "dgx");
  CHECK(s.cluster.topology.params.at("nic_bw") == "100Gbps");
  // The spec string's values point at their columns inside the quoted string (line 11, string at column 13).
  CHECK(s.cluster.topology.param_locations.at("nodes").line == 11);
  CHECK(s.cluster.topology.param_locations.at("nodes").column == 24);
  CHECK(s.cluster.workers->value == 8);

  REQUIRE(s.model.layers.size() == 5);  // block x3 expanded
  CHECK(s.model.layers[0].value.params == 25'700'000);
  CHECK(s.model.layers[0].value.weight_elements_read == 0);
  CHECK(s.model.layers[1].value.name == "block.0");
  CHECK(s.model.layers[3].value.name == "block.2");
  CHECK(s.model.layers[3].value.weight_elements_read == 7'100'000);  // defaults to params
  CHECK(s.model.layers[3].key == "model.layers[1]");
  CHECK(s.model.layers[4].value.saved_mask_bytes == 512);
  CHECK(s.model.optimizer.value == Optimizer::momentum);
  CHECK(s.model.micro_batches == 4);
  CHECK(s.model.backward_factor == 2.5);
  CHECK(s.model.efficiency == 0.4);
  CHECK(s.model.kernel_overhead == SimTime::from_us(3));

  const TrainingConfig& t = s.training;
  CHECK(t.strategy.value == StrategyKind::hybrid);
  CHECK(t.communication.value == Communication::parameter_server);
  CHECK(t.group_size->value == 4);
  CHECK(t.any_algorithm);
  CHECK(t.channels->value == 2);
  CHECK(t.latency_model.value == LatencySource::physical);
  CHECK(t.bucket_size == Bytes{64LL << 20});
  CHECK_FALSE(t.overlap);
  CHECK(t.iterations == 5);
  CHECK(t.warmup_iterations == 2);
  CHECK(t.parameter_servers.count.value == 2);
  CHECK(t.parameter_servers.nic_bw->bytes_per_second == 50e9);
  CHECK(t.parameter_servers.apply_rate->bytes_per_second == 500e9);

  CHECK(s.stragglers.jitter.distribution == JitterKind::normal);
  REQUIRE(s.degraded_links.size() == 1);
  CHECK(s.degraded_links[0].between.a.value == "nic1");
  CHECK(s.degraded_links[0].factor == 0.25);
  CHECK(s.degraded_links[0].until == SimTime::from_ms(1500));
  REQUIRE(s.faults.size() == 2);
  CHECK(s.faults[0].between->b.value == "nvswitch0");
  CHECK(s.faults[0].policy.value == FaultPolicy::elastic);
  CHECK(s.faults[1].policy.value == FaultPolicy::restart_from_checkpoint);  // hybrid's default
  CHECK(s.checkpoint.every == SimTime::from_seconds(30));
  CHECK(s.checkpoint.restart_cost == SimTime::from_seconds(20));
  CHECK(s.detection_timeout == SimTime::from_seconds(5));
}

TEST_CASE("a topology file is found relative to the scenario file", "[scenario]") {
  const Scenario s = load_scenario(kLoaderData / "file_topology.yaml");
  const std::filesystem::path expected = (kLoaderData / "../../../examples/topologies/pcie-2x2.dot").lexically_normal();
  CHECK(s.cluster.topology.params.at("path") == expected.string());
  CHECK(build_scenario_topology(s).gpu_count() == 4);
  // Rank 3 exists in the file's 4 GPUs; rank 4 would not.
  CHECK_THROWS_WITH(load_scenario(kLoaderData / "file_topology.yaml", {"faults[0].rank=4"}),
                    Catch::StartsWith("--set: faults[0].rank: rank 4 does not exist: the topology has 4 GPUs"));
}

TEST_CASE("the topology the loader checked is the one scenario_topology gives, until the spec changes", "[scenario]") {
  Scenario s = parse_scenario(kMinimal, "ok.yaml");
  REQUIRE(s.cluster.built != nullptr);
  const std::shared_ptr<const Topology> loaded = scenario_topology(s);
  CHECK(loaded.get() == &s.cluster.built->topology);  // not built again
  const Scenario copy = s;
  CHECK(scenario_topology(copy).get() == loaded.get());
  // A spec changed in code no longer names what was built: scenario_topology builds the new one.
  s.cluster.topology.params["n"] = "4";
  CHECK(scenario_topology(s)->gpu_count() == 4);
  CHECK(loaded->gpu_count() == 8);
}

TEST_CASE("to_yaml is deterministic and loads back to the same scenario", "[scenario]") {
  for (const char* name : {"scenarios_doc_example.yaml", "inline_hybrid.yaml"}) {
    INFO(name);
    const Scenario first = load_scenario(kLoaderData / name);
    const std::string yaml = to_yaml(first);
    CHECK(to_yaml(load_scenario(kLoaderData / name)) == yaml);
    const Scenario again = parse_scenario(yaml, "resolved.yaml");
    CHECK(to_yaml(again) == yaml);
  }
  const Scenario hybrid = load_scenario(kLoaderData / "inline_hybrid.yaml");
  CHECK(hybrid.training.parameter_servers.partition == TensorPartition::greedy);
  CHECK(hybrid.training.parameter_servers.per_message == SimTime::from_us(20));
  CHECK(hybrid.training.parameter_servers.host == ServerHost::cpu);
  CHECK(
      to_yaml(hybrid).find("partition: greedy\n    per_message: 20us\n    host: cpu\n    host_memory_bw: 100GB/s\n") !=
      std::string::npos);
  const std::string minimal = to_yaml(parse_scenario(kMinimal, "minimal.yaml"));
  CHECK(minimal.find("framework_overhead") == std::string::npos);  // unset: not written
  CHECK(minimal.find("parallelism") == std::string::npos);         // plain data parallelism: not written
  const Scenario layout =
      parse_scenario(kMinimal, "minimal.yaml",
                     {"parallelism.tensor=2", "parallelism.sharding=full", "parallelism.shard_group=2",
                      "parallelism.schedule=interleaved", "parallelism.virtual_stages=2"});
  const std::string written = to_yaml(layout);
  CHECK(to_yaml(parse_scenario(written, "resolved.yaml")) == written);
  CHECK(written.find("sharding: full\n  shard_group: 2\n  schedule: interleaved\n  virtual_stages: 2\n") !=
        std::string::npos);
  const Scenario burdened = parse_scenario(
      std::string(kMinimal) + "training: {framework_overhead: 3ms, overlap_slowdown: 0.05}\n", "burdened.yaml");
  const std::string burdened_yaml = to_yaml(burdened);
  CHECK(burdened_yaml.find("framework_overhead: 3ms\n  overlap_slowdown: 0.05\n") != std::string::npos);
  CHECK(to_yaml(parse_scenario(burdened_yaml, "again.yaml")) == burdened_yaml);
  CHECK(minimal.find("bucket_size: 25MB\n") != std::string::npos);
  CHECK(minimal.find("algorithm: auto\n") != std::string::npos);
  CHECK(minimal.find("detection_timeout: 30s\n") != std::string::npos);
  CHECK(minimal.find("kernel_overhead: 5us\n") != std::string::npos);
  CHECK(minimal.find("slow: []\n") != std::string::npos);
}

TEST_CASE("topology errors point into the scenario under cluster.topology", "[scenario]") {
  // The generator finds the bad value at build time; the message carries the YAML position and the key path.
  try {
    parse_scenario(
        "cluster: {gpu: A100-SXM4-80GB, topology: {kind: dgx, nodes: 2, nic_bw: 100}}\n"
        "model: {name: resnet50, batch_per_gpu: 8}\n",
        "t.yaml");
    FAIL("expected an InputError");
  } catch (const InputError& error) {
    CHECK_THAT(error.what(), Catch::StartsWith("t.yaml:1:72: cluster.topology.nic_bw: "));
  }
  const Scenario s = parse_scenario(kMinimal, "ok.yaml");
  CHECK(build_scenario_topology(s).gpu_count() == 8);
}

TEST_CASE("catalog models take shape overrides, kept located for the catalog to judge", "[scenario]") {
  const Scenario s = parse_scenario(kMinimal, "shape.yaml", {"model.name=bert-large", "model.sequence_length=128"});
  REQUIRE(s.model.sequence_length);
  CHECK(s.model.sequence_length->value == 128);
  CHECK(s.model.sequence_length->key == "model.sequence_length");
  CHECK_FALSE(s.model.image_size);
  CHECK(to_yaml(s).find("sequence_length: 128\n") != std::string::npos);
}
