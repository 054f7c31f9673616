// `cluster.gpu: {profile: results.json}` end to end: the measured GPU (gpu_profile.hpp) runs the model at
// efficiency 1, exactly as the same GPU written inline with model.efficiency 1 does; bad profiles fail at the key.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>

#include "syncsim/compute/compute_model.hpp"
#include "syncsim/compute/kernel_model.hpp"
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

namespace {

// An H200 profile whose measurements are the catalog's own anchors: its GEMMs of several shapes timed as the kernel
// model runs them at the catalog H200's constant (FP8 at the catalog's FP8-to-BF16 ratio), its copy kernel at
// kStreamingFraction of the datasheet bandwidth, no sustained loop (its GEMMs quiet, as the published anchor's) unless
// `loop` gives one (the JSON of a "sustained" section); written to the temporary folder as `file` (one per test case:
// ctest runs them side by side).
std::filesystem::path catalog_like_profile(const std::string& file, const std::string& loop = "") {
  GpuSpec h200 = find_gpu("H200");
  h200.sustained_matmul.reset();
  const KernelModel model(h200, KernelStyle::fused);
  const double core = *model.core();
  std::string gemm = R"({"precision": "fp32", "tflops": 50})";
  const double shapes[][3] = {{8192, 8192, 8192}, {4096, 6144, 4096}, {16384, 4096, 14336}, {2048, 28672, 4096}};
  for (const auto& [name, peak, c] : {std::tuple{"bf16", *h200.peaks.bf16, core},
                                      std::tuple{"fp8", *h200.peaks.fp8, core * *h200.scaled_gemm_ratio}}) {
    for (const auto& s : shapes) {
      const double rate =
          peak * c * model.shape_factors({.m = s[0], .n = s[1], .k = s[2]}, peak / *h200.peaks.bf16).efficiency;
      gemm += fmt::format(R"(, {{"precision": "{}", "m": {}, "n": {}, "k": {}, "tflops": {:.17g}}})", name, s[0], s[1],
                          s[2], rate / 1e12);
    }
  }
  const std::filesystem::path path = std::filesystem::temp_directory_path() / file;
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      << R"({"compute": {"device_name": "NVIDIA H200", "gemm": [)" << gemm
      << fmt::format(R"(], "memory": {{"copy_kernel_gbps": {:.17g}}}{}}}}})",
                     kStreamingFraction * h200.memory_bandwidth.gb_per_s(), loop);
  return path;
}

std::string llm_yaml(const std::string& gpu, const std::string& precision) {
  return "name: shaped\n"
         "cluster: {gpu: " +
         gpu +
         ", topology: \"dgx:nodes=1,gpus=8,nvlink_bw=450GB/s,nic_bw=400Gbps\"}\n"
         "model: {name: llama3-8b, sequence_length: 4096, batch_per_gpu: 1, micro_batches: 4, precision: " +
         precision +
         ", kernels: fused}\n"
         "training: {strategy: sync, iterations: 1}\n"
         "parallelism: {tensor: 2, data: auto, sharding: optimizer}\n";
}

}  // namespace

TEST_CASE("kernels by shape on a profile that measured the catalog's own anchors run as the catalog GPU does",
          "[gpu_profile]") {
  const std::filesystem::path path = catalog_like_profile("syncsim-catalog-like-h200.json");
  for (const char* precision : {"bf16", "fp8"}) {
    const TrainingReport catalog = run::run_scenario(parse_scenario(llm_yaml("H200", precision), "c.yaml")).report;
    const TrainingReport profiled =
        run::run_scenario(parse_scenario(llm_yaml("{profile: \"" + path.string() + "\"}", precision), "p.yaml")).report;
    CHECK(profiled.gpu == catalog.gpu);
    CHECK(profiled.kernel_anchors->scaled_gemm_ratio == Approx(*find_gpu("H200").scaled_gemm_ratio).epsilon(1e-9));
    // The profile's fit gives back the catalog's constant, FP8 ratio and streaming fraction to rounding.
    CHECK(profiled.samples_per_second == Approx(catalog.samples_per_second).epsilon(1e-9));
  }
  std::filesystem::remove(path);
}

TEST_CASE("a profile's sustained loop replaces the published sustained share, and the report says which ran",
          "[gpu_profile]") {
  // The loop's windows keep 100, 80, 80 and 80 % of the first: its second half, 0.8, against the published 0.905.
  const std::filesystem::path looped = catalog_like_profile(
      "syncsim-looped-h200.json",
      R"(, "sustained": {"windows": [{"gemm_tflops": 700}, {"gemm_tflops": 560}, {"gemm_tflops": 560},
      {"gemm_tflops": 560}]})");
  const std::filesystem::path quiet = catalog_like_profile("syncsim-quiet-h200.json");
  const TrainingReport published =
      run::run_scenario(parse_scenario(llm_yaml("{profile: \"" + quiet.string() + "\"}", "bf16"), "q.yaml")).report;
  const TrainingReport measured =
      run::run_scenario(parse_scenario(llm_yaml("{profile: \"" + looped.string() + "\"}", "bf16"), "l.yaml")).report;
  REQUIRE(published.kernel_model);
  REQUIRE(measured.kernel_model);
  CHECK(published.kernel_model->sustained_source == "published");
  CHECK(published.kernel_model->sustained == *find_gpu("H200").sustained_matmul);
  CHECK(measured.kernel_model->sustained_source == "measured");
  CHECK(measured.kernel_model->sustained == Approx(0.8));
  CHECK(measured.kernel_anchors->sustained_measured);
  CHECK(*measured.kernel_model->gemm_core ==
        Approx(*published.kernel_model->gemm_core * 0.8 / *find_gpu("H200").sustained_matmul));
  CHECK(measured.samples_per_second < published.samples_per_second);
  std::filesystem::remove(looped);
  std::filesystem::remove(quiet);
}

TEST_CASE("kernels by shape on the measured H200 run within 3 % of the catalog H200 anchored on that session",
          "[gpu_profile]") {
  const TrainingReport catalog = run::run_scenario(parse_scenario(llm_yaml("H200", "bf16"), "c.yaml")).report;
  const TrainingReport profiled =
      run::run_scenario(parse_scenario(llm_yaml("{profile: \"" + kH200 + "\"}", "bf16"), "p.yaml")).report;
  // The four measured squares fit a constant 2 % above the catalog's one-shape anchor (gemm_fit_test.cpp), and the
  // copy kernel reached 0.866 of the bandwidth against kStreamingFraction's 0.87.
  CHECK(profiled.samples_per_second > catalog.samples_per_second);
  // The report says what anchored the kernels: four BF16 squares, no FP8 timed (the published ratio stays unsaid).
  REQUIRE(profiled.kernel_anchors);
  CHECK(profiled.kernel_anchors->fitted_shapes == 4);
  const double sustained = *find_gpu("H200").sustained_matmul;
  CHECK(profiled.kernel_anchors->gemm_core > 0.8 * sustained);
  CHECK_FALSE(profiled.kernel_anchors->scaled_gemm_ratio);
  CHECK(profiled.kernel_anchors->streaming_fraction == Approx(4156.331865509388 / 4800));
  CHECK(profiled.kernel_anchors->sustained == sustained);  // no loop ran: the published fraction
  CHECK_FALSE(profiled.kernel_anchors->sustained_measured);
  CHECK_FALSE(catalog.kernel_anchors);
  CHECK(profiled.samples_per_second == Approx(catalog.samples_per_second).epsilon(0.03));
}

TEST_CASE("a stated efficiency on a profiled GPU runs the measured rates, kernels named or not", "[gpu_profile]") {
  // model.efficiency turns kernels by shape off (compute_model.hpp), so the profile is the GPU as measured.
  const auto with = [](const std::string& kernels) {
    std::string yaml = llm_yaml("{profile: \"" + kH200 + "\"}", "bf16");
    yaml.replace(yaml.find(", kernels: fused"), std::string(", kernels: fused").size(), kernels + ", efficiency: 0.9");
    return run::run_scenario(parse_scenario(yaml, "e.yaml")).report;
  };
  const TrainingReport named = with(", kernels: fused");
  const TrainingReport unnamed = with("");
  CHECK(named.samples_per_second == unnamed.samples_per_second);
  CHECK_FALSE(named.kernel_anchors);
}

TEST_CASE("kernels by shape on a profiled GPU the catalog does not know fail at cluster.gpu.profile", "[gpu_profile]") {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "syncsim-unknown-gpu-profile.json";
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      << R"({"compute": {"device_name": "Acme X1", "gemm": [{"precision": "fp32", "tflops": 10},)"
      << R"({"precision": "bf16", "tflops": 100}], "memory": {"copy_kernel_gbps": 1000}}})";
  const std::string gpu = "{profile: \"" + path.string() + "\", mem: 80GB}";
  CHECK_THROWS_WITH(run::run_scenario(parse_scenario(llm_yaml(gpu, "bf16"), "u.yaml")),
                    Catch::Contains("u.yaml:2:26: cluster.gpu.profile") &&
                        Catch::Contains("need a device the catalog knows") && Catch::Contains("'Acme X1'"));
  std::filesystem::remove(path);
}
