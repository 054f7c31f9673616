#include <catch2/catch.hpp>

#include "syncsim/compute/compute_model.hpp"
#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/core/input_error.hpp"
#include "toy_gpu.hpp"

using namespace syncsim;
using namespace syncsim::toy_gpu;

namespace {
// A 4096 x 4096 matrix product per sample: 2·4096² FLOPs against 2·4096 elements moved — compute-bound.
const Layer kGemm{.name = "gemm",
                  .params = 4096 * 4096,
                  .forward_flops = 2 * 4096 * 4096,
                  .weight_elements_read = 4096 * 4096,
                  .activation_elements_moved = 2 * 4096,
                  .saved_elements = 4096};

SimTime without_overhead(const ComputeModel& c, const Layer& l, std::int64_t batch) {
  return c.forward(l, batch) - c.options().kernel_overhead;
}
// A toy GPU: bf16 10 TFLOP/s, fp8 20 TFLOP/s, 100 GB/s.
GpuSpec toy_fp8_gpu() {
  return make_gpu_spec("toy8", {.fp32 = 1e12, .bf16 = 10e12, .fp8 = 20e12}, Bandwidth::from_gb_per_s(100), Bytes{kGiB});
}

// kGemm as a transformer block's 4096 x 4096 linear layer.
Layer block_gemm() {
  Layer gemm = kGemm;
  gemm.weight_rows = 4096;
  gemm.weight_cols = 4096;
  gemm.weight_matrices = 1;
  gemm.kind = LayerKind::gemm;
  return gemm;
}
}  // namespace

TEST_CASE("layer time is the roofline plus the kernel overhead, exactly", "[compute_model]") {
  // System: toy GPU, fp32 (1 TFLOP/s, 4-byte elements), efficiency 0.5, overhead 5 us, batch 10.
  //   elementwise: 10 x 2e6 elements x 4 B = 80 MB at 50 GB/s = 1.6 ms (compute: 1e7 / 5e11 = 20 us)
  //   gemm: 10 x 2·4096² = 335.5 MFLOP at 0.5 TFLOP/s = 671.09 us (memory: (4096² + 10·8192) x 4 B / 50 GB/s
  //   = 1.349 ms: at batch 10 even the GEMM is memory-bound, weights dominate)
  const ComputeModel c(toy(), Precision::fp32, {.efficiency = 0.5});
  CHECK(c.forward(kElementwise, 10) == SimTime::from_us(1600) + SimTime::from_us(5));
  CHECK(c.forward(kGemm, 10) == SimTime::from_seconds((4096.0 * 4096 + 10 * 8192) * 4 / 50e9) + SimTime::from_us(5));
  CHECK_FALSE(c.roofline(kGemm, 10).compute_bound());
  // At batch 1000 the weights are amortized and the GEMM is compute-bound: 1000 x 2·4096² / 5e11.
  CHECK(c.roofline(kGemm, 1000).compute_bound());
  CHECK(c.forward(kGemm, 1000) == SimTime::from_seconds(1000 * 2.0 * 4096 * 4096 / 5e11) + SimTime::from_us(5));
}

TEST_CASE("a compute-bound layer scales with the peak, a memory-bound one with the bandwidth", "[compute_model]") {
  const ComputeModel base(toy(), Precision::fp32);
  const ComputeModel twice_peak(toy(2e12), Precision::fp32);
  const ComputeModel twice_bw(toy(1e12, 10e12, 200), Precision::fp32);
  const std::int64_t batch = 1000;
  REQUIRE(base.roofline(kGemm, batch).compute_bound());
  REQUIRE_FALSE(base.roofline(kElementwise, batch).compute_bound());
  const auto ps = [](SimTime t) { return static_cast<double>(t.ps()); };
  CHECK(ps(without_overhead(twice_peak, kGemm, batch)) == Approx(ps(without_overhead(base, kGemm, batch)) / 2));
  CHECK(without_overhead(twice_bw, kGemm, batch) == without_overhead(base, kGemm, batch));
  CHECK(ps(without_overhead(twice_bw, kElementwise, batch)) ==
        Approx(ps(without_overhead(base, kElementwise, batch)) / 2));
  CHECK(without_overhead(twice_peak, kElementwise, batch) == without_overhead(base, kElementwise, batch));
}

TEST_CASE("precision picks the peak and the element size", "[compute_model]") {
  // A100 dense peaks: fp32 19.5, tf32 156, fp16 = bf16 312 TFLOP/s. A compute-bound GEMM follows them.
  const GpuSpec a100 = find_gpu("A100-SXM4-80GB");
  const std::int64_t batch = 4096;
  const auto t = [&](Precision p) {
    return static_cast<double>(without_overhead(ComputeModel(a100, p), kGemm, batch).ps());
  };
  CHECK(t(Precision::fp32) / t(Precision::tf32) == Approx(156 / 19.5));
  CHECK(t(Precision::tf32) / t(Precision::fp16) == Approx(2.0));
  CHECK(t(Precision::bf16) == t(Precision::fp16));
  // A memory-bound layer moves half the bytes at 16 bits.
  const auto m = [&](Precision p) {
    return static_cast<double>(without_overhead(ComputeModel(a100, p), kElementwise, batch).ps());
  };
  CHECK(m(Precision::fp32) / m(Precision::bf16) == Approx(2.0));
  CHECK(m(Precision::fp32) == m(Precision::tf32));
  CHECK_THROWS_WITH(ComputeModel(find_gpu("V100-SXM2-32GB"), Precision::bf16), Catch::Contains("no bf16"));
}

TEST_CASE("Transformer Engine's norm writes the next GEMM's FP8 input: no cast forward, a transpose backward",
          "[compute_model]") {
  // The toy system of the case below: fp8 20 TFLOP/s, 100 GB/s at efficiency 0.5, a 4096 x 4096 GEMM at batch 1000.
  //   cast       1000·4096 x (2 + 2 x 1) B / 50 GB/s = 0.328 ms   (TE's fp8_cast_transpose_fused, te.Linear)
  //   transpose  1000·4096 x (1 + 1) B / 50 GB/s     = 0.164 ms   (LayerNormLinear's fp8_transpose in backward)
  const GpuSpec gpu = toy_fp8_gpu();
  const ComputeModel c(gpu, Precision::fp8, {.efficiency = 0.5});
  const Layer gemm = block_gemm();
  Layer lead = gemm;
  lead.shape.cast_by_norm = true;
  const double product = 1000 * 2.0 * 4096 * 4096 / 10e12;
  const double cast = 1000 * 4096.0 * 4 / 50e9;
  const double transpose = 1000 * 4096.0 * 2 / 50e9;
  const SimTime overhead = SimTime::from_us(5);
  CHECK(c.forward(gemm, 1000) == SimTime::from_seconds(product + cast) + overhead);
  CHECK(c.forward(lead, 1000) == SimTime::from_seconds(product) + overhead);
  // Backward runs what a te.Linear's does (twice the forward, its casts included) and the transpose.
  CHECK(c.backward(gemm, 1000) == (SimTime::from_seconds(product + cast) + overhead) * 2);
  CHECK(c.backward(lead, 1000) ==
        (SimTime::from_seconds(product + cast) + overhead) * 2 + SimTime::from_seconds(transpose));
  // The norm writes 1 byte an element where it wrote 2: (4096 weights + 1000 x 4096 read) x 2 B + 1000 x 4096 x 1 B.
  Layer norm{.name = "norm",
             .params = 4096,
             .forward_flops = 4 * 4096,
             .weight_elements_read = 4096,
             .activation_elements_moved = 2 * 4096};
  const double bf16_bytes = 2.0 * (4096 + 1000 * 2 * 4096);
  CHECK(c.roofline(norm, 1000).memory_seconds == Approx(bf16_bytes / 50e9));
  norm.shape.quantized_output_elements = 4096;
  CHECK(c.roofline(norm, 1000).memory_seconds == Approx((bf16_bytes - 1000 * 4096.0) / 50e9));
  // BF16, and PyTorch's modules (torchao casts each input itself), are as before.
  const ComputeModel bf16(gpu, Precision::bf16, {.efficiency = 0.5});
  CHECK(bf16.roofline(norm, 1000).memory_seconds == Approx(bf16_bytes / 50e9));
  CHECK(bf16.forward(lead, 1000) == bf16.forward(gemm, 1000));
  const ComputeModel eager(gpu, Precision::fp8, {.efficiency = 0.5, .kernels = KernelStyle::eager});
  CHECK(eager.forward(lead, 1000) == eager.forward(gemm, 1000));
  CHECK(eager.backward(lead, 1000) == eager.backward(gemm, 1000));
}

TEST_CASE("a scaled precision runs the blocks' GEMMs in the low format and the rest in bf16", "[compute_model]") {
  // System: toy GPU with bf16 10 TFLOP/s, fp8 20 TFLOP/s, 100 GB/s; efficiency 0.5, overhead 5 us; a 4096 x 4096
  // block GEMM at batch 1000 (input and output 1000 x 4096 elements each).
  //   product   1000 x 2·4096² FLOPs / (20e12 x 0.5)                                = 3.355 ms
  //   memory    (4096² weights + 1000·4096 input) x 1 B + 1000·4096 output x 2 B, / 50 GB/s = 0.582 ms
  //   quantize  1000·4096 input elements x (2 + 2 x 1) B / 50 GB/s                   = 0.328 ms
  const GpuSpec gpu = toy_fp8_gpu();
  const ComputeModel c(gpu, Precision::fp8, {.efficiency = 0.5});
  const Layer gemm = block_gemm();
  const double product = 1000 * 2.0 * 4096 * 4096 / 10e12;
  const double quantize = 1000 * 4096.0 * 4 / 50e9;
  CHECK(c.runs_scaled(gemm));
  CHECK(c.roofline(gemm, 1000).memory_seconds == Approx((4096.0 * 4096 + 1000 * 4096 + 2 * 1000 * 4096) / 50e9));
  CHECK(c.forward(gemm, 1000) == SimTime::from_seconds(product + quantize) + SimTime::from_us(5));
  // A product that reads the previous one's input (K beside Q, up beside gate: one fused GEMM in Megatron) finds it
  // cast already.
  Layer sibling = gemm;
  sibling.shape.shares_input = true;
  CHECK(c.forward(sibling, 1000) == SimTime::from_seconds(product) + SimTime::from_us(5));
  // PyTorch's separate nn.Linear modules (torchao's Float8Linear) each cast their input.
  const ComputeModel eager(gpu, Precision::fp8, {.efficiency = 0.5, .kernels = KernelStyle::eager});
  CHECK(eager.forward(sibling, 1000) == eager.forward(gemm, 1000));
  // The same product kept in 16 bits (an LM head) runs at the bf16 peak, as does every layer under bf16.
  Layer kept = gemm;
  kept.kind = LayerKind::gemm_kept;
  CHECK_FALSE(c.runs_scaled(kept));
  CHECK(c.forward(kept, 1000) == SimTime::from_seconds(2 * product) + SimTime::from_us(5));
  CHECK(ComputeModel(gpu, Precision::bf16, {.efficiency = 0.5}).forward(gemm, 1000) == c.forward(kept, 1000));
  // Memory-bound work keeps its 2-byte elements.
  CHECK(c.forward(kElementwise, 10) ==
        ComputeModel(gpu, Precision::bf16, {.efficiency = 0.5}).forward(kElementwise, 10));
  // The optimizer step also writes the weights' FP8 copies, as is and transposed: 28 + 2 bytes per parameter.
  CHECK(c.optimizer_step(1'000'000, Optimizer::adam) == SimTime::from_seconds(30e6 / 50e9) + SimTime::from_us(5));
}

TEST_CASE("a precision the GPU lacks is refused naming the GPU and what it has", "[compute_model]") {
  CHECK_THROWS_WITH(ComputeModel(find_gpu("A100-SXM4-80GB"), Precision::fp8),
                    Catch::Equals("GPU 'A100-SXM4-80GB' has no fp8 arithmetic; it supports fp32, tf32, fp16, bf16"));
  CHECK_THROWS_WITH(ComputeModel(find_gpu("H100-SXM-80GB"), Precision::nvfp4),
                    Catch::Contains("'H100-SXM-80GB' has no nvfp4") && Catch::Contains("fp16, bf16, fp8"));
  CHECK_NOTHROW(ComputeModel(find_gpu("H100-SXM-80GB"), Precision::fp8));
  CHECK_NOTHROW(ComputeModel(find_gpu("B200"), Precision::nvfp4));
  // A scaled GPU without bf16 beside it cannot run the recipe.
  const GpuSpec odd =
      make_gpu_spec("odd", {.fp32 = 1e12, .fp16 = 2e12, .fp8 = 4e12}, Bandwidth::from_gb_per_s(100), Bytes{kGiB});
  CHECK_THROWS_WITH(ComputeModel(odd, Precision::fp8), Catch::Contains("runs fp8 beside bf16, which it lacks"));
}

TEST_CASE("only models with block GEMMs take a scaled precision", "[compute_model]") {
  CHECK_NOTHROW(check_scaled_layers(find_model("llama3-8b"), Precision::fp8));
  CHECK_NOTHROW(check_scaled_layers(find_model("resnet50"), Precision::bf16));
  CHECK_THROWS_WITH(check_scaled_layers(find_model("resnet50"), Precision::fp8),
                    Catch::Contains("model 'resnet50' has no layer that fp8 runs in its scaled format"));
}

TEST_CASE("backward is the backward factor times forward", "[compute_model]") {
  const ComputeModel two(toy(), Precision::fp32);
  CHECK(two.backward(kGemm, 7) == two.forward(kGemm, 7) * 2);
  const ComputeModel three(toy(), Precision::fp32, {.backward_factor = 3.0});
  CHECK(three.backward(kElementwise, 7) == three.forward(kElementwise, 7) * 3);
}

TEST_CASE("a model's times are the exact sums of its layers'", "[compute_model]") {
  const ModelSpec model = find_model("resnet50");
  const ComputeModel c(find_gpu("H100-SXM"), Precision::bf16);
  SimTime forward;
  SimTime backward;
  for (const Layer& l : model.layers()) {
    forward += c.forward(l, 32);
    backward += c.backward(l, 32);
  }
  CHECK(c.forward(model, 32) == forward);
  CHECK(c.backward(model, 32) == backward);
  // Every layer pays the overhead once per pass.
  CHECK(forward > SimTime::from_us(5) * static_cast<std::int64_t>(model.layers().size()));
}

TEST_CASE("optimizer step and reduction rate stream through memory", "[compute_model]") {
  // Adam moves 28 bytes per parameter: 1e9 parameters on the toy GPU at 50 GB/s effective = 560 ms.
  const ComputeModel c(toy(), Precision::fp16, {.efficiency = 0.5});
  CHECK(c.optimizer_step(1'000'000'000, Optimizer::adam) == SimTime::from_ms(560) + SimTime::from_us(5));
  CHECK(c.optimizer_step(1'000'000'000, Optimizer::sgd) == SimTime::from_ms(240) + SimTime::from_us(5));
  CHECK(c.optimizer_step(1'000'000'000, Optimizer::momentum) == SimTime::from_ms(400) + SimTime::from_us(5));
  // Reduction: read two operands, write one: a third of the bandwidth, no efficiency factor.
  CHECK(c.reduction_rate().bytes_per_second == Approx(100e9 / 3));
  CHECK(ComputeModel(find_gpu("H200"), Precision::fp16).reduction_rate().gb_per_s() == Approx(1600));
}

TEST_CASE("options and batch sizes are validated", "[compute_model]") {
  CHECK_THROWS_WITH(ComputeModel(toy(), Precision::fp32, {.efficiency = 0}), Catch::Contains("efficiency"));
  // Above 1 only as a fitted step time allows (step_time_fit.hpp), up to 4.
  CHECK_NOTHROW(ComputeModel(toy(), Precision::fp32, {.efficiency = 1.5}));
  CHECK_THROWS_WITH(ComputeModel(toy(), Precision::fp32, {.efficiency = 4.5}), Catch::Contains("efficiency"));
  CHECK_THROWS_WITH(ComputeModel(toy(), Precision::fp32, {.backward_factor = 0}), Catch::Contains("backward"));
  CHECK_THROWS_WITH(ComputeModel(toy(), Precision::fp32, {.kernel_overhead = SimTime::from_us(-1)}),
                    Catch::Contains("overhead"));
  const ComputeModel c(toy(), Precision::fp32);
  CHECK_THROWS_AS(c.forward(kGemm, 0), InputError);
  CHECK_THROWS_WITH(c.optimizer_step(-1, Optimizer::sgd), Catch::Contains("must not be negative"));
  // Full efficiency and no overhead: the pure roofline.
  const ComputeModel ideal(toy(), Precision::fp32, {.efficiency = 1.0, .kernel_overhead = SimTime::zero()});
  CHECK(ideal.forward(kElementwise, 10) == SimTime::from_us(800));
}

TEST_CASE("the defaults predict NVIDIA's published ResNet-50 training throughput within 25 %", "[compute_model]") {
  // NVIDIA DeepLearningExamples, PyTorch ResNet-50 v1.5 README (NGC 21.03), one GPU: V100 16GB FP32 367 and AMP
  // 1,200 img/s; A100 80GB TF32 938 and AMP 2,470 img/s. Ours: forward + backward + SGD-momentum step, no input
  // pipeline: 0.76x, 0.82x, 1.21x, 0.90x.
  const ComputeOptions defaults;
  CHECK_FALSE(defaults.efficiency);  // kDefaultEfficiency
  CHECK_FALSE(defaults.kernels);     // the constant roofline, not kernels by shape
  CHECK(kDefaultEfficiency == 0.7);
  CHECK(defaults.kernel_overhead == SimTime::from_us(5));
  CHECK(defaults.backward_factor == 2.0);
  const ModelSpec r50 = find_model("resnet50");
  const auto images_per_second = [&](const char* gpu, Precision p, std::int64_t batch) {
    const ComputeModel c(find_gpu(gpu), p);
    const SimTime step =
        c.forward(r50, batch) + c.backward(r50, batch) + c.optimizer_step(r50.params(), Optimizer::momentum);
    return static_cast<double>(batch) / step.seconds();
  };
  CHECK(images_per_second("V100-SXM2-16GB", Precision::fp32, 128) == Approx(367).epsilon(0.25));
  CHECK(images_per_second("V100-SXM2-16GB", Precision::fp16, 256) == Approx(1200).epsilon(0.25));
  CHECK(images_per_second("A100-SXM4-80GB", Precision::tf32, 256) == Approx(938).epsilon(0.25));
  CHECK(images_per_second("A100-SXM4-80GB", Precision::fp16, 256) == Approx(2470).epsilon(0.25));
}
