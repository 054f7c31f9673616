// `cluster.gpu: {profile: results.json}` end to end: the measured GPU (gpu_profile.hpp) runs the model at
// efficiency 1, exactly as the same GPU written inline with model.efficiency 1 does; bad profiles fail at the key.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "syncsim/core/input_error.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

const std::string kH200 =
    std::string(SYNCSIM_EXAMPLES_DIR "/../validation/measurements/2026-11-29-1xH200/results.json");

std::string gpu_profile_yaml(const std::string& gpu, const std::string& model_extra = "") {
  return "name: measured\n"
         "cluster: {gpu: " +
         gpu +
         ", topology: \"switch:n=4,bw=100Gbps,lat=5us\"}\n"
         "model: {name: resnet50, batch_per_gpu: 64, precision: bf16" +
         model_extra +
         "}\n"
         "training: {strategy: sync, iterations: 3}\n";
}

}  // namespace

TEST_CASE("a GPU profile runs as the measured GPU at efficiency 1", "[gpu_profile]") {
  const Scenario measured = parse_scenario(gpu_profile_yaml("{profile: \"" + kH200 + "\"}"), "measured.yaml");
  REQUIRE(measured.cluster.gpu.profile);
  const TrainingReport profiled = run::run_scenario(measured).report;
  CHECK(profiled.gpu == "H200-SXM-141GB");
  // The same rates written inline (from the profile: fp32 51.26, tf32 405.6, fp16 and bf16 the best GEMMs).
  const GpuSpec& gpu = *measured.cluster.gpu.inline_spec;
  const std::string inline_gpu = "{name: H200-SXM-141GB, peak_tflops: {fp32: " + std::to_string(gpu.peaks.fp32 / 1e12) +
                                 ", bf16: " + std::to_string(*gpu.peak(Precision::bf16) / 1e12) +
                                 "}, mem_bw: " + std::to_string(gpu.memory_bandwidth.gb_per_s()) + "GB/s, mem: 141GiB}";
  const TrainingReport written =
      run::run_scenario(parse_scenario(gpu_profile_yaml(inline_gpu, ", efficiency: 1"), "inline.yaml")).report;
  CHECK(profiled.single_gpu_samples_per_second == Approx(written.single_gpu_samples_per_second).epsilon(1e-5));
  // A profile with a stated efficiency keeps it.
  const TrainingReport slower =
      run::run_scenario(parse_scenario(gpu_profile_yaml("{profile: \"" + kH200 + "\"}", ", efficiency: 0.5"), "m.yaml"))
          .report;
  CHECK(slower.single_gpu_samples_per_second < profiled.single_gpu_samples_per_second);
}

TEST_CASE("a GPU profile writes back as the profile and reads back the same", "[gpu_profile]") {
  const Scenario measured = parse_scenario(gpu_profile_yaml("{profile: \"" + kH200 + "\"}"), "measured.yaml");
  const Scenario again = parse_scenario(to_yaml(measured), "again.yaml");
  REQUIRE(again.cluster.gpu.profile);
  CHECK(again.cluster.gpu.profile->value == measured.cluster.gpu.profile->value);
  CHECK(again.cluster.gpu.inline_spec->peaks.fp32 == measured.cluster.gpu.inline_spec->peaks.fp32);
}

TEST_CASE("a bad GPU profile fails at cluster.gpu.profile", "[gpu_profile]") {
  CHECK_THROWS_WITH(parse_scenario(gpu_profile_yaml("{profile: /dev/zero}"), "bad.yaml"),
                    Catch::Contains("bad.yaml:2:26: cluster.gpu.profile") && Catch::Contains("not a regular file"));
  CHECK_THROWS_WITH(parse_scenario(gpu_profile_yaml("{profile: \"" + kH200 + "\", mem_bw: 1TB/s}"), "bad.yaml"),
                    Catch::Contains("cluster.gpu.mem_bw") && Catch::Contains("comes from the GPU profile"));
}

TEST_CASE("a clock overflow from a GPU profile's rates is placed at cluster.gpu.profile, naming the file",
          "[gpu_profile]") {
  // 1e-300 TFLOP/s: one sample's forward pass takes longer than the clock holds (106 days), whatever the batch.
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "syncsim-slow-gpu-profile.json";
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      << R"({"compute": {"device_name": "NVIDIA H200", "gemm": [{"precision": "fp32", "tflops": 1e-300},)"
      << R"({"precision": "bf16", "tflops": 1e-300}], "memory": {"copy_kernel_gbps": 4000}}})";
  const Scenario slow = parse_scenario(gpu_profile_yaml("{profile: \"" + path.string() + "\"}"), "slow.yaml");
  CHECK_THROWS_WITH(run::run_scenario(slow), Catch::Contains("slow.yaml:2:26: cluster.gpu.profile: ") &&
                                                 Catch::Contains(path.string()) &&
                                                 Catch::Contains("even at 1 sample per GPU"));
  std::filesystem::remove(path);
}
