// `model.profile` end to end (compute/layer_profile_match.hpp): the real torch.profiler trace becomes the layers'
// times of a run, the report says so, and every contradictory or broken input is refused at its key.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "syncsim/compute/compute_model.hpp"
#include "syncsim/compute/layer_profile_match.hpp"
#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {
const std::filesystem::path kProfileScenario = std::filesystem::path(SYNCSIM_RUN_DATA_DIR) / "resnet50-profile.yaml";
const std::string kTrace = std::string(SYNCSIM_TORCH_PROFILER_DATA "/resnet50-cpu.json");

TrainingReport run_file(const std::vector<std::string>& overrides = {}) {
  return run::run_scenario(load_scenario(kProfileScenario, overrides)).report;
}

std::string profile_error_of(const std::vector<std::string>& overrides) {
  try {
    run_file(overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string load_error(const std::string& model_extra) {
  const std::string yaml =
      "cluster: {gpu: V100-SXM2-16GB, topology: \"switch:n=4,bw=100Gbps\"}\n"
      "model: {name: resnet50, batch_per_gpu: 2" +
      model_extra + "}\n";
  try {
    parse_scenario(yaml, "bad.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("a profiled run computes with the trace's layer times", "[profile]") {
  const TrainingReport r = run_file();
  REQUIRE(r.compute_profile);
  const auto& p = *r.compute_profile;
  CHECK(p.file == "resnet50-cpu.json");
  CHECK(p.profile_batch == 2);
  CHECK_FALSE(p.kernel_times);
  CHECK(p.layers == 174);
  CHECK(p.module_calls == 158);
  CHECK(p.by_name == 102);
  CHECK(p.by_call == 48);
  CHECK(p.by_order == 8);
  CHECK(p.between_modules == 16);
  // The trace's module ranges and the residual adds' gaps (layer_profile_match_test.cpp), at the trace's batch.
  CHECK(p.forward == SimTime::from_us(526'102));
  CHECK(p.backward == SimTime::from_us(1'390'163));
  CHECK(p.unattributed_forward == SimTime::from_us(543'866 - 526'102));

  // One GPU's iteration: the measured forward and backward, and the roofline's optimizer step (the trace's own
  // optimizer phase is not used: the scenario names its optimizer).
  const ModelSpec model = find_model("resnet50", ModelOptions{.image_size = 64});
  const ComputeModel roofline(find_gpu("V100-SXM2-16GB"), Precision::fp32);
  CHECK(r.single_gpu_iteration ==
        p.forward + p.backward + roofline.optimizer_step(model.params(), Optimizer::momentum));
  CHECK(p.roofline_forward == roofline.forward(model, 2));
  CHECK(p.roofline_backward == roofline.backward(model, 2));
  // Four workers pay communication on top.
  CHECK(r.iteration_mean >= r.single_gpu_iteration);
}

TEST_CASE("at another batch each profiled layer follows the roofline's batch dependence", "[profile]") {
  const TrainingReport r = run_file({"model.batch_per_gpu=8"});
  const ModelSpec model = find_model("resnet50", ModelOptions{.image_size = 64});
  const ComputeModel roofline(find_gpu("V100-SXM2-16GB"), Precision::fp32);
  const ProfiledTimes t = profiled_times(match_layers(model, read_profile_trace(kTrace)), roofline, model, 2, 8);
  SimTime forward;
  for (SimTime f : t.forward) forward += f;
  CHECK(r.compute_profile->forward == forward);
  // More than at batch 2, and at most 4x: weights and launches do not grow with the batch.
  CHECK(forward > SimTime::from_us(526'102));
  CHECK(forward <= SimTime::from_us(4 * 526'102));
}

TEST_CASE("model.profile refuses what contradicts it, at its key", "[profile]") {
  const std::string profile = ", profile: " + kTrace + ", profile_batch: 2";
  CHECK_THAT(load_error(", efficiency: 0.5" + profile),
             Catch::StartsWith("bad.yaml:2:69: model.profile: gives every layer its measured forward and backward: "
                               "remove model.efficiency"));
  CHECK_THAT(load_error(", step_time: 97ms" + profile),
             Catch::Contains("model.profile: gives every layer its measured forward and backward: remove "
                             "model.step_time"));
  CHECK_THAT(load_error(", backward_factor: 2" + profile), Catch::Contains("remove model.backward_factor"));
  CHECK_THAT(load_error(", profile_batch: 2"),
             Catch::StartsWith("bad.yaml:2:58: model.profile_batch: is the batch of a profiler trace: give "
                               "model.profile too"));
  CHECK_THAT(load_error(", profile: " + kTrace),
             Catch::StartsWith("bad.yaml:2:8: model.profile_batch: missing required key 'profile_batch' (the batch per "
                               "GPU the profiler trace was taken at)"));
  CHECK_THAT(load_error(", profile: " + kTrace + ", profile_batch: 99999999"),
             Catch::Contains("model.profile_batch: expected at most 16777216 samples"));
  CHECK_THAT(load_error(", profile: " + kTrace + ", profile_batch: 0"), Catch::Contains("model.profile_batch: "));
}

TEST_CASE("a trace that cannot be read or does not match fails at model.profile, naming the file", "[profile]") {
  // A path given by --set is placed at the flag; one in the file at its line (tests/run/CMakeLists.txt).
  CHECK_THAT(profile_error_of({"model.profile=no-such-trace.json"}),
             Catch::Matches("--set: model.profile: .*/tests/run/data/no-such-trace.json: cannot open the profiler "
                            "trace: No such file or directory"));
  CHECK_THAT(profile_error_of({"model.profile=/dev/zero"}), Catch::Contains("model.profile: /dev/zero: cannot read"));
  CHECK_THAT(profile_error_of({"model.profile=" + std::string(SYNCSIM_RUN_DATA_DIR)}),
             Catch::Contains("it is a directory"));
  // Invalid JSON is placed inside the trace file, at its line and column.
  CHECK_THAT(profile_error_of({"model.profile=resnet50-profile.yaml"}),
             Catch::Matches(".*/resnet50-profile.yaml:1:1: not a profiler trace: invalid JSON \\(syntax error .*"));
  // The trace of one model read into another names the first layer without a module.
  CHECK_THAT(profile_error_of({"model.name=vgg16"}),
             Catch::Matches(".*resnet50-profile.yaml:[0-9]+:[0-9]+: model.profile: .*resnet50-cpu.json: layer 1 of "
                            "model vgg16, 'features.conv1', matches no module in the trace.*"));
}

TEST_CASE("a profiled scenario writes back and loads to the same scenario", "[profile]") {
  const Scenario s = load_scenario(kProfileScenario);
  const std::string yaml = to_yaml(s);
  CHECK(yaml.find("profile: " + s.model.profile->value + "\n") != std::string::npos);
  CHECK(yaml.find("profile_batch: 2\n") != std::string::npos);
  CHECK(yaml.find("backward_factor") == std::string::npos);  // excluded with a profile
  CHECK(to_yaml(parse_scenario(yaml, "resolved.yaml")) == yaml);
  CHECK(std::filesystem::path(s.model.profile->value).filename() == "resnet50-cpu.json");
}
