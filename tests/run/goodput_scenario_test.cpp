// `reliability:` end to end through run_scenario: the checkpoint's size from the memory model, the report's
// goodput section, its determinism, and the errors bad values get.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "syncsim/core/input_error.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

// 8 A100s on one node; resnet50 in fp16 with Adam.
std::string goodput_yaml(const std::string& reliability, const std::string& checkpoint = "{restart_cost: 60s}") {
  return fmt::format(
      "name: goodput\n"
      "seed: 5\n"
      "cluster: {{gpu: A100-SXM4-80GB, topology: \"dgx:nodes=1,gpus=8\"}}\n"
      "model: {{name: resnet50, batch_per_gpu: 64, precision: fp16, optimizer: adam}}\n"
      "training: {{strategy: sync, iterations: 4}}\n"
      "checkpoint: {}\n"
      "reliability: {}\n",
      checkpoint, reliability);
}

TrainingReport run_goodput_yaml(const std::string& yaml) {
  return run::run_scenario(parse_scenario(yaml, "goodput.yaml")).report;
}

std::string goodput_error_of(const std::string& yaml) {
  try {
    parse_scenario(yaml, "goodput.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("the checkpoint holds weights and optimizer state: 14 bytes a parameter under fp16 and Adam") {
  // Mixed precision: 2 bytes of fp16 weights, 12 of FP32 master weights and two moments (memory_check.hpp); each
  // of the 8 data-parallel ranks holds all of it, and the job writes it once.
  const TrainingReport r = run_goodput_yaml(goodput_yaml("{failures: default, duration: 7d}"));
  REQUIRE(r.goodput);
  CHECK(r.goodput->checkpoint_bytes.value == 14 * r.params);
  CHECK(r.goodput->checkpoint_bytes_per_rank.value == 14 * r.params);
  // One host at its 400 Gbps storage port: 50 GB/s.
  CHECK(r.goodput->checkpoint_write_seconds == Approx(14.0 * static_cast<double>(r.params) / 50e9));
  CHECK(r.goodput->checkpoint_interval_seconds == r.goodput->checkpoint_interval_optimal_seconds);
  CHECK(r.goodput->interruptions.expected > 0);
}

TEST_CASE("a rate map gives the closed form's expected interruptions over the job's duration") {
  // 8 GPUs at 1/1000h and 1 host at 1/100h for 1000 h: 8 + 10 = 18.
  const TrainingReport r = run_goodput_yaml(goodput_yaml("{failures: {gpu: 1/1000h, host: 0.01/h}, duration: 1000h}"));
  REQUIRE(r.goodput);
  CHECK(r.goodput->interruptions.expected == Approx(18));
  CHECK(r.goodput->interruptions.p10 <= r.goodput->interruptions.p90);
  CHECK(r.goodput->ettr > 0);
  CHECK(r.goodput->ettr < 1);
}

TEST_CASE("the same scenario and seed give the same goodput") {
  const std::string yaml = goodput_yaml("{failures: default, duration: 30d, samples: 200}");
  const TrainingReport a = run_goodput_yaml(yaml);
  const TrainingReport b = run_goodput_yaml(yaml);
  CHECK(to_json(a).dump() == to_json(b).dump());
}

TEST_CASE("a checkpoint interval in iterations is that many engine iterations") {
  const TrainingReport r =
      run_goodput_yaml(goodput_yaml("{failures: default, duration: 7d}", "{interval: 1000, restart_cost: 60s}"));
  REQUIRE(r.goodput);
  CHECK(r.goodput->checkpoint_interval_seconds == Approx(1000 * r.iteration_mean.seconds()));
}

TEST_CASE("bad reliability values are refused at their key") {
  CHECK_THAT(goodput_error_of(goodput_yaml("{failures: {gpu: 3}, duration: 54d}")),
             Catch::Contains("reliability.failures.gpu") && Catch::Contains("a number without its time"));
  CHECK_THAT(goodput_error_of(goodput_yaml("{failures: {gpu: 1/fast}, duration: 54d}")),
             Catch::Contains("reliability.failures.gpu") && Catch::Contains("a rate per component-hour"));
  CHECK_THAT(goodput_error_of(goodput_yaml("{failures: {gpus: 1/100h}, duration: 54d}")),
             Catch::Contains("did you mean 'gpu'"));
  CHECK_THAT(goodput_error_of(goodput_yaml("{failures: sometimes, duration: 54d}")),
             Catch::Contains("reliability.failures") && Catch::Contains("expected default"));
  CHECK_THAT(goodput_error_of(goodput_yaml("{failures: default}")), Catch::Contains("missing required key 'duration'"));
  CHECK_THAT(goodput_error_of(goodput_yaml("{failures: default, duration: 54}")),
             Catch::Contains("reliability.duration"));
  CHECK_THAT(goodput_error_of(goodput_yaml("{failures: default, duration: 54d, spares: -1}")),
             Catch::Contains("reliability.spares"));
  CHECK_THAT(goodput_error_of(goodput_yaml("{failures: default, duration: 54d, samples: 0}")),
             Catch::Contains("reliability.samples"));
  CHECK_THAT(goodput_error_of(goodput_yaml("{failures: default, duration: 54d}", "{storage_bandwidth: 2TB}")),
             Catch::Contains("checkpoint.storage_bandwidth"));
  CHECK_THAT(goodput_error_of(goodput_yaml("{failures: default, duration: 54d}", "{async: maybe}")),
             Catch::Contains("checkpoint.async"));
}

TEST_CASE("a scenario with reliability loads back from its own YAML") {
  const Scenario s =
      parse_scenario(goodput_yaml("{failures: {gpu: 1/30000h, switch: 2e-5/h}, duration: 54d, spares: 3}",
                                  "{restart_cost: 60s, storage_bandwidth: 2TB/s, async: true}"),
                     "goodput.yaml");
  const Scenario back = parse_scenario(to_yaml(s), "back.yaml");
  REQUIRE(back.reliability);
  CHECK(back.reliability->rates.gpu == s.reliability->rates.gpu);
  CHECK(back.reliability->rates.network_switch == s.reliability->rates.network_switch);
  CHECK(back.reliability->duration_seconds == s.reliability->duration_seconds);
  CHECK(back.reliability->spares == 3);
  CHECK(back.checkpoint.async);
  CHECK(back.checkpoint.storage_bandwidth == s.checkpoint.storage_bandwidth);
}
