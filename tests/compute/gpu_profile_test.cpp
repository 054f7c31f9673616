// GPU profiles (gpu_profile.hpp): the H200 that syncsim-bench-nccl --compute measured on the device machine, read
// back as a GPU; and the files that are not profiles.
#include <catch2/catch.hpp>

#include <string>

#include "syncsim/compute/gpu_profile.hpp"
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
  CHECK(refused("# nThread 1") == "not a GPU profile: the file is not JSON");
  CHECK(refused(R"({"results": []})").find("no \"compute\" section") != std::string::npos);
  CHECK(refused(profile("Acme", R"({"precision": "fp16", "tflops": 80})")).find("no fp32 GEMM") != std::string::npos);
  CHECK(refused(profile("Acme", R"({"precision": "fp32", "tflops": -1})")).find("positive number") !=
        std::string::npos);
  CHECK(refused(profile("Acme", R"({"precision": "fp8", "tflops": 1})")).find("unknown GEMM precision 'fp8'") !=
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
