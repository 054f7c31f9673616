// GPU profiles (gpu_profile.hpp): the H200 that syncsim-bench-nccl --compute measured on the device machine, read
// back as a GPU; and the files that are not profiles.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>
#include <tuple>

#include "syncsim/compute/gpu_profile.hpp"
#include "syncsim/compute/kernel_model.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;

namespace {

const std::string kH200 = std::string(SYNCSIM_MEASUREMENTS_DIR "/2026-11-29-1xH200/results.json");

std::string profile(const std::string& device, const std::string& gemm) {
  return R"({"compute": {"device": 0, "device_name": ")" + device + R"(", "gemm": [)" + gemm +
         R"(], "memory": {"bytes": 1024, "copy_kernel_gbps": 100.5, "memcpy_gbps": 99}}})";
}

}  // namespace

TEST_CASE("a measured H200: the fastest GEMM per precision, the copy kernel's bandwidth, the catalog's memory",
          "[gpu_profile]") {
  const GpuSpec h200 = read_gpu_profile(kH200, std::nullopt);
  CHECK(h200.name == "H200-SXM-141GB");  // "NVIDIA H200" in the catalog
  // validation/measurements/2026-11-29-1xH200/results.json: the best of the 1,024 .. 8,192 square GEMMs.
  CHECK(h200.peaks.fp32 == Approx(51.26412258690269e12));
  CHECK(*h200.peak(Precision::tf32) == Approx(405.6122490316525e12));
  CHECK(*h200.peak(Precision::bf16) == Approx(791.6625355778667e12));
  CHECK(h200.memory_bandwidth.gb_per_s() == Approx(4156.331865509388));
  CHECK(h200.memory.value == std::int64_t{141} << 30);
  CHECK(h200.compute_capability == 90);
  CHECK(h200.nvlink_bandwidth);
  // Below the datasheet's dense peaks (67 / 494.7 / 989.4 TFLOP/s, 4,800 GB/s): rates reached, not ceilings.
  const GpuSpec datasheet = find_gpu("H200");
  CHECK(h200.peaks.fp32 < datasheet.peaks.fp32);
  CHECK(h200.memory_bandwidth.bytes_per_second < datasheet.memory_bandwidth.bytes_per_second);
}

TEST_CASE("a device the catalog does not know needs its memory size, fp16 stays what was measured", "[gpu_profile]") {
  const std::string text = profile("Acme X1", R"({"precision": "fp32", "tflops": 10}, {"precision": "fp16",
                                                 "tflops": 80}, {"precision": "fp16", "tflops": 120})");
  CHECK_THROWS_WITH(parse_gpu_profile(text, "x1.json", std::nullopt),
                    Catch::Contains("does not know device 'Acme X1'; give the GPU's memory size"));
  const GpuSpec x1 = parse_gpu_profile(text, "x1.json", Bytes{std::int64_t{24} << 30});
  CHECK(x1.name == "Acme X1");
  CHECK(*x1.peak(Precision::fp16) == Approx(120e12));
  CHECK(*x1.peak(Precision::tf32) == Approx(10e12));  // no TF32 measured: runs as FP32
  CHECK_FALSE(x1.peak(Precision::bf16));
  CHECK_FALSE(x1.compute_capability);
}

TEST_CASE("files that are not GPU profiles are refused, saying why", "[gpu_profile]") {
  const auto refused = [](const std::string& text) {
    try {
      parse_gpu_profile(text, "p.json", Bytes{1 << 30});
    } catch (const InputError& e) {
      CHECK(e.where()->source == "p.json");
      return e.message();
    }
    FAIL("accepted: " << text);
    return std::string();
  };
  CHECK(refused("# nThread 1").starts_with("not a GPU profile: the file is not JSON (syntax error"));
  CHECK(refused(R"({"results": []})").find("no \"compute\" section") != std::string::npos);
  CHECK(refused(profile("Acme", R"({"precision": "fp16", "tflops": 80})")).find("no fp32 GEMM") != std::string::npos);
  CHECK(refused(profile("Acme", R"({"precision": "fp32", "tflops": -1})")).find("positive number") !=
        std::string::npos);
  CHECK(refused(profile("Acme", R"({"precision": "int8", "tflops": 1})")).find("unknown GEMM precision 'int8'") !=
        std::string::npos);
  CHECK_THROWS_WITH(read_gpu_profile("/dev/zero", std::nullopt), Catch::Contains("not a regular file"));
}

TEST_CASE("a GPU profile nested too deep is refused at the bracket, and errors never print a deep value",
          "[gpu_profile]") {
  // 200,000 arrays deep: the error message's dump() of the value recursed until the stack overflowed.
  std::string deep = R"({"compute": {"gemm": [{"precision": "fp32", "tflops": )";
  deep.append(200'000, '[');
  deep.append(200'000, ']');
  deep.append("}]}}");
  CHECK_THROWS_WITH(parse_gpu_profile(deep, "p.json", Bytes{1 << 30}),
                    Catch::Equals("p.json:1:307: arrays and objects nested deeper than 256 levels"));
  CHECK_THROWS_WITH(
      parse_gpu_profile(profile("Acme", R"({"precision": "fp32", "tflops": [[[1]]]})"), "p.json", Bytes{1 << 30}),
      Catch::EndsWith("fp32 GEMM tflops: expected a positive number, got a list of 1 value"));
}

namespace {

// A profile of an H200 whose GEMMs run as the kernel model says with constants `bf16_core` and `fp8_core`, and an
// optional sustained loop on the 8,192³ BF16 GEMM.
std::string shaped_profile(double bf16_core, double fp8_core, const std::string& sustained = "") {
  const GpuSpec h200 = find_gpu("H200");
  const KernelModel model(h200, KernelStyle::fused);
  std::string gemm = R"({"precision": "fp32", "tflops": 50})";
  const double shapes[][3] = {{8192, 8192, 8192}, {2048, 2048, 2048}, {8192, 2560, 8192}, {16384, 4096, 14336}};
  for (const auto& [name, peak, core] :
       {std::tuple{"bf16", *h200.peaks.bf16, bf16_core}, std::tuple{"fp8", *h200.peaks.fp8, fp8_core}}) {
    const double k_scale = peak / *h200.peaks.bf16;
    for (const auto& s : shapes) {
      const double rate = peak * core * model.shape_factors({.m = s[0], .n = s[1], .k = s[2]}, k_scale).efficiency;
      gemm += fmt::format(R"(, {{"precision": "{}", "m": {}, "n": {}, "k": {}, "tflops": {:.17g}}})", name, s[0], s[1],
                          s[2], rate / 1e12);
    }
  }
  return R"({"compute": {"device_name": "NVIDIA H200", "gemm": [)" + gemm +
         R"(], "memory": {"copy_kernel_gbps": 4200})" + sustained + "}}";
}

}  // namespace

TEST_CASE("kernels by shape on a profiled GPU: the catalog's GPU anchored on the profile's measurements",
          "[gpu_profile]") {
  const GpuSpec profiled = parse_gpu_profile(shaped_profile(0.8, 0.64), "p.json", std::nullopt);
  REQUIRE(profiled.measured);
  CHECK(profiled.measured->gemms.size() == 8);
  CHECK(*profiled.peak(Precision::fp8) > *profiled.peak(Precision::bf16));  // fp8 measured, so the profile has it
  const GpuSpec kernels = measured_kernel_gpu(profiled);
  const GpuSpec h200 = find_gpu("H200");
  // The datasheet's peaks and SMs, the profile's memory; the anchors are the measurements'.
  CHECK(kernels.peaks.bf16 == h200.peaks.bf16);
  CHECK(kernels.multiprocessors == h200.multiprocessors);
  CHECK(*kernels.gemm_core == Approx(0.8).epsilon(1e-9));
  CHECK(*kernels.scaled_gemm_ratio == Approx(0.64 / 0.8).epsilon(1e-9));  // FP8's achievable fraction over BF16's
  CHECK(*kernels.streaming_fraction == Approx(4200.0 / h200.memory_bandwidth.gb_per_s()));
  CHECK(kernels.flash_attention.fused == h200.flash_attention.fused);
  // No sustained loop: the kernel model runs the quiet fit at the catalog's published sustained fraction.
  CHECK(kernels.sustained_matmul == h200.sustained_matmul);
  CHECK(*KernelModel(kernels, KernelStyle::fused).core() == Approx(0.8 * *h200.sustained_matmul).epsilon(1e-9));
  // A GPU without measurements is its own view.
  CHECK(measured_kernel_gpu(h200).name == h200.name);
  CHECK_FALSE(measured_kernel_gpu(h200).gemm_core);
}

TEST_CASE("a GEMM that keeps 90 % of its quiet rate in the sustained loop slows every compute-bound kernel so",
          "[gpu_profile]") {
  // Windows at 100, 95, 90 and 90 % of the 8,192³ GEMM's quiet rate: the loop's second half keeps 90 %.
  const GpuSpec quiet = parse_gpu_profile(shaped_profile(0.8, 0.64), "p.json", std::nullopt);
  const double rate = quiet.measured->gemms.front().flops_per_second / 1e12;
  const std::string loop = fmt::format(
      R"(, "sustained": {{"precision": "bf16", "m": 8192, "n": 8192, "k": 8192, "windows": [{{"gemm_tflops": {}}},
      {{"gemm_tflops": {}}}, {{"gemm_tflops": {}}}, {{"gemm_tflops": {}}}]}})",
      rate, 0.95 * rate, 0.9 * rate, 0.9 * rate);
  const GpuSpec loaded = parse_gpu_profile(shaped_profile(0.8, 0.64, loop), "p.json", std::nullopt);
  CHECK(loaded.measured->sustained == Approx(0.9));
  CHECK(*loaded.peak(Precision::bf16) == Approx(0.9 * *quiet.peak(Precision::bf16)));
  const GpuSpec kernels = measured_kernel_gpu(loaded);
  CHECK(*kernels.gemm_core == Approx(0.8).epsilon(1e-9));          // the quiet fit
  CHECK(*kernels.sustained_matmul == Approx(0.9));                 // the loop's, in place of the published one
  CHECK(*kernels.scaled_gemm_ratio == Approx(0.8).epsilon(1e-9));  // the same clock for both formats
  const KernelModel model(kernels, KernelStyle::fused);
  CHECK(*model.core() == Approx(0.72).epsilon(1e-9));
  CHECK(*model.attention(128, 16384, false) == Approx(0.9 * *find_gpu("H200").flash_attention.fused));
  // A loop faster than quiet is noise, not a clock that rises: at most 1.
  const std::string fast =
      fmt::format(R"(, "sustained": {{"windows": [{{"gemm_tflops": {}}}, {{"gemm_tflops": {}}}]}})", rate, 1.2 * rate);
  CHECK(parse_gpu_profile(shaped_profile(0.8, 0.64, fast), "p.json", std::nullopt).measured->sustained == 1);
}

TEST_CASE("a profile's shapes and sustained loop are checked, and kernels by shape need a catalog device",
          "[gpu_profile]") {
  const auto refused = [](const std::string& text) {
    try {
      measured_kernel_gpu(parse_gpu_profile(text, "p.json", Bytes{1 << 30}));
    } catch (const InputError& e) {
      return e.message();
    }
    FAIL("accepted: " << text);
    return std::string();
  };
  CHECK_THAT(refused(profile("Acme", R"({"precision": "fp32", "tflops": 1, "m": 4, "n": 4})")),
             Catch::Contains("all of \"m\", \"n\" and \"k\" or none"));
  CHECK_THAT(refused(profile("Acme", R"({"precision": "fp32", "tflops": 1, "m": 4, "n": 4, "k": 0})")),
             Catch::Contains("fp32 GEMM k: expected a positive number, got 0"));
  CHECK_THAT(refused(profile("Acme", R"({"precision": "fp32", "tflops": 1, "m": 4, "n": 4, "k": 1e300})")),
             Catch::Contains("expected at most"));
  CHECK_THAT(refused(R"({"compute": {"device_name": "Acme", "gemm": [{"precision": "fp32", "tflops": 1}],
                         "memory": {"copy_kernel_gbps": 1}, "sustained": {"windows": []}}})"),
             Catch::Contains("\"sustained\" needs a non-empty \"windows\" list"));
  CHECK_THAT(refused(profile("NVIDIA H200", R"({"precision": "fp32", "tflops": 1},
                                              {"precision": "bf16", "tflops": 2000, "m": 8192, "n": 8192, "k": 8192})")),
             Catch::Contains("ran at 2000.0 TFLOP/s, above the 989.4 of H200-SXM-141GB's datasheet"));
  CHECK_THAT(refused(R"({"compute": {"device_name": "NVIDIA H200", "gemm": [{"precision": "fp32", "tflops": 1}],
                         "memory": {"copy_kernel_gbps": 9000}}})"),
             Catch::Contains("the copy kernel ran at 9000.0 GB/s, above the 4800.0 of H200-SXM-141GB's datasheet"));
  CHECK_THAT(refused(profile("Acme", R"({"precision": "fp32", "tflops": 1})")),
             Catch::Contains("need a device the catalog knows") && Catch::Contains("'Acme'"));
}
