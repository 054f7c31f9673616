#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/core/input_error.hpp"
#include "toy_gpu.hpp"

using namespace syncsim;
using namespace syncsim::toy_gpu;

namespace {}

TEST_CASE("the catalog holds the datasheet numbers", "[gpu_spec]") {
  // System: A100 SXM4 80GB datasheet: FP32 19.5, TF32 156, FP16/BF16 312 dense TFLOPS, 2,039 GB/s, 80 GB.
  const GpuSpec a100 = find_gpu("A100-SXM4-80GB");
  CHECK(a100.peak(Precision::fp32) == Approx(19.5e12));
  CHECK(a100.peak(Precision::tf32) == Approx(156e12));
  CHECK(a100.peak(Precision::fp16) == Approx(312e12));
  CHECK(a100.peak(Precision::bf16) == Approx(312e12));
  CHECK(a100.memory_bandwidth.gb_per_s() == Approx(2039));
  CHECK(a100.memory.value == 80 * kGiB);
  CHECK(find_gpu("A100-SXM4-40GB").memory_bandwidth.gb_per_s() == Approx(1555));

  // H100 SXM and H200 share the compute; dense peaks, not the datasheet's 1,979 "with sparsity".
  const GpuSpec h100 = find_gpu("H100-SXM-80GB");
  const GpuSpec h200 = find_gpu("H200-SXM-141GB");
  CHECK(h100.peak(Precision::fp16) == Approx(989.4e12));
  CHECK(h100.peak(Precision::tf32) == Approx(494.7e12));
  CHECK(h200.peak(Precision::bf16) == h100.peak(Precision::bf16));
  CHECK(h100.memory_bandwidth.gb_per_s() == Approx(3350));
  CHECK(h200.memory_bandwidth.gb_per_s() == Approx(4800));
  CHECK(h200.memory.value == 141 * kGiB);

  const GpuSpec l40s = find_gpu("L40S");
  CHECK(l40s.peak(Precision::fp16) == Approx(362.05e12));
  CHECK(l40s.memory_bandwidth.gb_per_s() == Approx(864));
  CHECK(find_gpu("RTX-4090").peak(Precision::bf16) == Approx(165.2e12));
  CHECK(find_gpu("RTX-2080-Ti").memory.value == 11 * kGiB);
}

TEST_CASE("every catalog GPU is valid, with dense tensor peaks above its FP32 peak", "[gpu_spec]") {
  CHECK(gpu_catalog().size() == 20);
  for (const auto& entry : gpu_catalog()) {
    INFO(entry.spec.name);
    const GpuSpec& g = entry.spec;
    CHECK_NOTHROW(make_gpu_spec(g.name, g.peaks, g.memory_bandwidth, g.memory));
    CHECK_FALSE(entry.source.empty());
    CHECK(find_gpu(g.name).name == g.name);
    // Kepler (the K80) has no FP16 arithmetic; every GPU from Pascal on has.
    if (g.compute_capability && *g.compute_capability < 60) {
      CHECK_FALSE(g.peak(Precision::fp16));
      continue;
    }
    REQUIRE(g.peak(Precision::fp16));
    CHECK(*g.peak(Precision::fp16) > g.peaks.fp32);
    // No 2:4 sparsity figures: dense fp16 stays under 1,000 TFLOPS on NVIDIA GPUs before Blackwell (H100's sparse
    // figure is 1,979) and under 2,600 otherwise (B200's and GB200's sparse figures are 4,500 and 5,000, MI300X's
    // 2,615).
    const bool before_blackwell = g.compute_capability && *g.compute_capability < 100;
    CHECK(*g.peak(Precision::fp16) < (before_blackwell ? 1000e12 : 2600e12));
  }
}

TEST_CASE("the P100 and the K80 of the published data-parallel benchmarks", "[gpu_spec]") {
  const GpuSpec p100 = find_gpu("Tesla P100-SXM2-16GB");
  CHECK(p100.name == "P100-SXM2-16GB");
  CHECK(p100.peak(Precision::fp16) == Approx(21.2e12));
  CHECK(p100.nvlink_bandwidth->gb_per_s() == Approx(80));
  const GpuSpec k80 = find_gpu("Tesla K80");
  CHECK(k80.peak(Precision::fp32) == Approx(8.73e12 / 2));
  CHECK(k80.memory_bandwidth.gb_per_s() == Approx(240));
  CHECK_THROWS_WITH(k80.require_peak(Precision::fp16), Catch::Contains("no fp16"));
}

TEST_CASE("GPUs without TF32 run it as FP32, and without BF16 they refuse it", "[gpu_spec]") {
  const GpuSpec v100 = find_gpu("V100-SXM2-16GB");
  CHECK(v100.peak(Precision::tf32) == v100.peak(Precision::fp32));
  CHECK(v100.peak(Precision::fp16) == Approx(125e12));
  CHECK_FALSE(v100.peak(Precision::bf16));
  CHECK_THROWS_WITH(v100.require_peak(Precision::bf16),
                    Catch::Contains("no bf16") && Catch::Contains("supports fp32, tf32, fp16"));
  CHECK_FALSE(find_gpu("2080ti").peak(Precision::bf16));
}

TEST_CASE("lookups ignore case and separators and know the aliases and nvidia-smi names", "[gpu_spec]") {
  CHECK(find_gpu("a100-80gb").name == "A100-SXM4-80GB");
  CHECK(find_gpu("A100_SXM4_40GB").name == "A100-SXM4-40GB");
  CHECK(find_gpu("H100-SXM").name == "H100-SXM-80GB");
  CHECK(find_gpu("NVIDIA H100 80GB HBM3").name == "H100-SXM-80GB");
  CHECK(find_gpu("h200").name == "H200-SXM-141GB");
  CHECK(find_gpu("Tesla V100-SXM2-32GB").name == "V100-SXM2-32GB");
  CHECK(find_gpu("V100-16GB").name == "V100-SXM2-16GB");
  CHECK(find_gpu("NVIDIA GeForce RTX 4090").name == "RTX-4090");
  CHECK(find_gpu("rtx 2080 ti").name == "RTX-2080-Ti");
  CHECK(find_gpu("l40s").name == "L40S");
}

TEST_CASE("the device names nvidia-smi and rocm-smi print find their GPU", "[gpu_spec]") {
  // As nccl-tests logs print them after "device N [bus]" (the shipped logs of tests/data/nccl-tests among them).
  CHECK(find_gpu("NVIDIA A100-SXM4-80GB").name == "A100-SXM4-80GB");
  CHECK(find_gpu("NVIDIA H100 80GB HBM3").name == "H100-SXM-80GB");
  CHECK(find_gpu("NVIDIA H100 PCIe").name == "H100-PCIe-80GB");
  CHECK(find_gpu("NVIDIA H100 NVL").name == "H100-NVL-94GB");
  CHECK(find_gpu("NVIDIA H200").name == "H200-SXM-141GB");
  CHECK(find_gpu("NVIDIA B200").name == "B200-SXM-180GB");
  CHECK(find_gpu("NVIDIA GB200").name == "GB200-186GB");
  CHECK(find_gpu("NVIDIA B300").name == "B300-SXM-288GB");
  CHECK(find_gpu("NVIDIA L40S").name == "L40S");
  CHECK(find_gpu("NVIDIA GeForce RTX 2080 Ti").name == "RTX-2080-Ti");
  CHECK(find_gpu("Tesla V100-SXM2-16GB").name == "V100-SXM2-16GB");
  CHECK(find_gpu("AMD Instinct MI300X").name == "MI300X-192GB");
}

TEST_CASE("the 2026 catalog's datasheet figures, per GPU and dense", "[gpu_spec]") {
  // B200: DGX B200's eight GPUs give 36 PFLOPS FP16 with sparsity, 64 TB/s, 1,440 GB: per GPU 2.25 PFLOPS dense.
  const GpuSpec b200 = find_gpu("B200");
  CHECK(b200.peak(Precision::fp16) == Approx(2.25e15));
  CHECK(b200.memory_bandwidth.bytes_per_second == Approx(8e12));
  CHECK(b200.memory.value == 180 * kGiB);
  CHECK(b200.compute_capability == 100);
  // GB200 NVL72: 360 PFLOPS FP16 with sparsity over 72 GPUs, 13.4 TB: 2.5 PFLOPS dense and 186 GB each.
  const GpuSpec gb200 = find_gpu("GB200");
  CHECK(gb200.peak(Precision::bf16) == Approx(360e15 / 72 / 2));
  CHECK(gb200.memory.value == 186 * kGiB);
  // MI300X: not a CUDA device, so no compute capability (and no NCCL ceiling).
  const GpuSpec mi300x = find_gpu("MI300X");
  CHECK_FALSE(mi300x.compute_capability);
  CHECK(mi300x.peak(Precision::fp16) == Approx(1307.4e12));
  CHECK(mi300x.memory.value == 192 * kGiB);
}

TEST_CASE("FP8 and FP4 peaks are the dense tensor-core figures, where the GPU has the format", "[gpu_spec]") {
  // Hopper: FP8 twice BF16 (3,958 with sparsity), no block-scaled formats.
  const GpuSpec h100 = find_gpu("H100-SXM-80GB");
  CHECK(h100.peak(Precision::fp8) == Approx(1978.9e12));
  CHECK_FALSE(h100.peak(Precision::mxfp8));
  CHECK_FALSE(h100.peak(Precision::nvfp4));
  CHECK(find_gpu("H200").peak(Precision::fp8) == h100.peak(Precision::fp8));
  CHECK(h100.supported_precisions() == "fp32, tf32, fp16, bf16, fp8");
  // B200: DGX B200 prints FP8 72 PFLOPS with sparsity and FP4 144 | 72 (sparse | dense) for 8 GPUs.
  const GpuSpec b200 = find_gpu("B200");
  CHECK(b200.peak(Precision::fp8) == Approx(72e15 / 8 / 2));
  CHECK(b200.peak(Precision::mxfp8) == b200.peak(Precision::fp8));
  CHECK(b200.peak(Precision::nvfp4) == Approx(72e15 / 8));
  CHECK(b200.supported_precisions() == "fp32, tf32, fp16, bf16, fp8, mxfp8, nvfp4, mxfp4");
  // Blackwell Ultra raised FP4 only: B300 13.5 PFLOPS (108 dense for 8), GB300 15 (1,080 for 72).
  CHECK(find_gpu("B300").peak(Precision::nvfp4) == Approx(108e15 / 8));
  CHECK(find_gpu("B300").peak(Precision::fp8) == b200.peak(Precision::fp8));
  const GpuSpec gb300 = find_gpu("NVIDIA GB300");
  CHECK(gb300.name == "GB300-288GB");
  CHECK(gb300.peak(Precision::nvfp4) == Approx(1080e15 / 72));
  CHECK(gb300.peak(Precision::bf16) == find_gpu("GB200").peak(Precision::bf16));
  CHECK(gb300.nvlink_domain_gpus == 72);
  CHECK(gb300.compute_capability == 103);
  // AMD: MI300X FP8 (FNUZ, per tensor); MI355X OCP FP8 and the MX formats, no NVFP4, no TF32 matrix path.
  CHECK(find_gpu("MI300X").peak(Precision::fp8) == Approx(2614.9e12));
  CHECK_FALSE(find_gpu("MI300X").peak(Precision::mxfp4));
  const GpuSpec mi355x = find_gpu("AMD Instinct MI355X");
  CHECK(mi355x.peak(Precision::mxfp4) == Approx(256 * 16384 * 2.4e9).epsilon(1e-4));
  CHECK(mi355x.peak(Precision::fp8) == Approx(256 * 8192 * 2.4e9).epsilon(1e-4));
  CHECK_FALSE(mi355x.peak(Precision::nvfp4));
  CHECK(mi355x.peak(Precision::tf32) == mi355x.peak(Precision::fp32));
  CHECK(mi355x.memory.value == 288 * kGiB);
  // Ada: FP8 with FP32 accumulate. Ampere and older: none.
  CHECK(find_gpu("L40S").peak(Precision::fp8) == Approx(733e12));
  CHECK(find_gpu("RTX-4090").peak(Precision::fp8) == Approx(330.3e12));
  CHECK_FALSE(find_gpu("A100-80GB").peak(Precision::fp8));
  // Where a GPU has a scaled format, it is at least its BF16 rate and at most twice it for FP8 (the L40S's printed
  // BF16, 362.05, is 1% under half its FP8), six times for FP4: no sparse figure slipped in above.
  for (const auto& entry : gpu_catalog()) {
    const GpuSpec& g = entry.spec;
    for (Precision p : {Precision::fp8, Precision::mxfp8, Precision::nvfp4, Precision::mxfp4}) {
      if (!g.peak(p)) continue;
      INFO(g.name << " " << to_string(p));
      CHECK(*g.peak(p) >= *g.peak(Precision::bf16));
      CHECK(*g.peak(p) <= (p == Precision::fp8 || p == Precision::mxfp8 ? 2.05 : 6.01) * *g.peak(Precision::bf16));
    }
  }
}

TEST_CASE("unknown and ambiguous GPU names are input errors that list the choices", "[gpu_spec]") {
  CHECK_THROWS_AS(find_gpu("Z100"), InputError);
  CHECK_THROWS_WITH(find_gpu("Z100"), Catch::Contains("unknown GPU 'Z100'") && Catch::Contains("A100-SXM4-80GB") &&
                                          Catch::Contains("RTX-2080-Ti"));
  CHECK_THROWS_WITH(find_gpu("A100"),
                    Catch::Contains("ambiguous") && Catch::Contains("A100-SXM4-40GB or A100-SXM4-80GB"));
  CHECK_THROWS_WITH(find_gpu("v100"), Catch::Contains("ambiguous"));
  // Three H100s are in the catalog: the bare family name is not a guess at one of them.
  CHECK_THROWS_WITH(find_gpu("H100"), Catch::Contains("ambiguous") && Catch::Contains("H100-NVL-94GB"));
}

TEST_CASE("inline GPU definitions need positive numbers", "[gpu_spec]") {
  const Bandwidth bw = Bandwidth::from_gb_per_s(1000);
  const GpuSpec g = make_gpu_spec("mine", {.fp32 = 10e12, .tf32 = std::nullopt, .fp16 = 100e12, .bf16 = std::nullopt},
                                  bw, Bytes{24 * kGiB});
  CHECK(g.peak(Precision::fp16) == Approx(100e12));
  CHECK_FALSE(g.peak(Precision::tf32));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH(make_gpu_spec("", {.fp32 = 1e12}, bw, Bytes{kGiB}), Catch::Contains("needs a name"));
  CHECK_THROWS_WITH(make_gpu_spec("g", {.fp32 = 0}, bw, Bytes{kGiB}), Catch::Contains("fp32 peak"));
  CHECK_THROWS_WITH(make_gpu_spec("g", {.fp32 = nan}, bw, Bytes{kGiB}), Catch::Contains("fp32 peak"));
  CHECK_THROWS_WITH(make_gpu_spec("g", {.fp32 = 1e12, .tf32 = -1.0}, bw, Bytes{kGiB}), Catch::Contains("tf32 peak"));
  CHECK_THROWS_WITH(make_gpu_spec("g", {.fp32 = 1e12}, Bandwidth{0}, Bytes{kGiB}), Catch::Contains("bandwidth"));
  CHECK_THROWS_WITH(make_gpu_spec("g", {.fp32 = 1e12}, bw, Bytes{0}), Catch::Contains("memory size"));
}
