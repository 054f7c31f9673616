#include <catch2/catch.hpp>

#include <cmath>

#include "syncsim/compute/compute_model.hpp"
#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/compute/kernel_model.hpp"
#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;

namespace {
// The hand-worked factors of the tile model (kernel_model.hpp) on an H100 SXM: 132 SMs, candidate tiles 256x128,
// 128x256, 128x128 (reuse 0.75), 128x64 and 64x128 (reuse 0.5), K0 = 128.
double u_k(double k) {
  return k / (k + 128);
}
// What a saturated matmul keeps of its burst on a 700 W Hopper board: S. Bekman's MSMF over MAMF on the H200, 755 of
// 834 TFLOP/s.
const double kSustained = 755.0 / 834;
// core: the H100's best GEMM, 794.5 of 989.4 TFLOP/s at 2048 x 2048 x 13312: 256x128 tiles, 8 x 16 = 128 of them
// on 132 SMs (one wave, 128/132), full tiles, u_K = 13312/13440; sustained at the power limit.
const double kCore = (794.5 / 989.4) / (128.0 / 132 * u_k(13312)) * kSustained;

const Layer* find_layer(const ModelSpec& model, const std::string& name) {
  for (const Layer& l : model.layers()) {
    if (l.name == name) return &l;
  }
  return nullptr;
}
}  // namespace

TEST_CASE("a GEMM's efficiency is its hand-worked tile and wave count", "[kernel_model]") {
  const KernelModel h100(find_gpu("H100-SXM-80GB"), KernelStyle::fused);
  REQUIRE(h100.shapes_gemms());
  SECTION("4096^3: 16 x 32 = 512 tiles of 256x128, 4 waves of 132 (528 slots)") {
    const TileChoice t = h100.gemm({.m = 4096, .n = 4096, .k = 4096});
    CHECK(t.rows == 256);
    CHECK(t.cols == 128);
    CHECK(t.tiles == 512);
    CHECK(t.efficiency == Approx(kCore * 512.0 / 528 * u_k(4096)).epsilon(1e-12));
  }
  SECTION("Llama 3 8B's up-projection under TP 8: 8192 x 1792 x 4096, 32 x 14 = 448 tiles, 4 waves") {
    const TileChoice t = h100.gemm({.m = 8192, .n = 14336.0 / 8, .k = 4096});
    CHECK(t.tiles == 448);
    CHECK(t.efficiency == Approx(kCore * 448.0 / 528 * u_k(4096)).epsilon(1e-12));
    // Micro-batch 2 doubles M: 896 tiles fill 7 waves of 924 slots, so the efficiency rises where the shape says so.
    const TileChoice two = h100.gemm({.m = 16384, .n = 14336.0 / 8, .k = 4096});
    CHECK(two.tiles == 896);
    CHECK(two.efficiency == Approx(kCore * 896.0 / 924 * u_k(4096)).epsilon(1e-12));
    CHECK(two.efficiency > t.efficiency * 1.1);
  }
  SECTION("1024^3: the big tiles leave SMs idle, 128 tiles of 128x64 fill one wave at half the reuse") {
    const TileChoice t = h100.gemm({.m = 1024, .n = 1024, .k = 1024});
    CHECK(t.rows == 128);
    CHECK(t.cols == 64);
    CHECK(t.tiles == 128);
    CHECK(t.efficiency == Approx(kCore * 0.5 * 128.0 / 132 * u_k(1024)).epsilon(1e-12));
  }
  SECTION("a ragged edge runs whole tiles: M = 4097 takes as long as M = 4224, 33 rows of 128") {
    const TileChoice full = h100.gemm({.m = 4224, .n = 4096, .k = 4096});
    const TileChoice ragged = h100.gemm({.m = 4097, .n = 4096, .k = 4096});
    CHECK(ragged.tiles == full.tiles);
    CHECK(ragged.efficiency == Approx(full.efficiency * 4097 / 4224).epsilon(1e-12));
  }
  SECTION("the model reproduces the one measurement it is anchored to, sustained") {
    CHECK(h100.gemm({.m = 2048, .n = 2048, .k = 13312}).efficiency ==
          Approx(794.5 / 989.4 * kSustained).epsilon(1e-12));
    GpuSpec quiet = find_gpu("H100-SXM-80GB");
    quiet.sustained_matmul.reset();
    CHECK(KernelModel(quiet, KernelStyle::fused).gemm({.m = 2048, .n = 2048, .k = 13312}).efficiency ==
          Approx(794.5 / 989.4).epsilon(1e-12));
  }
}

TEST_CASE("a saturated matmul keeps the published share of its burst, carried to each board's power",
          "[kernel_model]") {
  // MSMF over MAMF where published: the H200's 755 of 834 and the B200's 1,429 of 1,745 TFLOP/s.
  CHECK(*find_gpu("H200-SXM-141GB").sustained_matmul == Approx(755.0 / 834).epsilon(1e-12));
  CHECK(*find_gpu("B200-SXM-180GB").sustained_matmul == Approx(1429.0 / 1745).epsilon(1e-12));
  // The same die on another board: the clock as the cube root of the power (power_clock_factor's law).
  CHECK(*find_gpu("H100-SXM-80GB").sustained_matmul == Approx(755.0 / 834).epsilon(1e-12));
  CHECK(*find_gpu("H100-NVL-94GB").sustained_matmul == Approx(755.0 / 834 * std::cbrt(400.0 / 700)).epsilon(1e-12));
  CHECK(*find_gpu("H100-PCIe-80GB").sustained_matmul == Approx(755.0 / 834 * std::cbrt(350.0 / 700)).epsilon(1e-12));
  CHECK(*find_gpu("GB200-186GB").sustained_matmul == Approx(1429.0 / 1745 * std::cbrt(1200.0 / 1000)).epsilon(1e-12));
  CHECK(*find_gpu("B300-SXM-288GB").sustained_matmul ==
        Approx(1429.0 / 1745 * std::cbrt(1100.0 / 1000)).epsilon(1e-12));
  CHECK(*find_gpu("GB300-288GB").sustained_matmul == Approx(1429.0 / 1745 * std::cbrt(1400.0 / 1000)).epsilon(1e-12));
  // The A100 has no published MSMF and keeps its burst rate; the MI300X's anchor was timed sustained already.
  CHECK_FALSE(find_gpu("A100-SXM4-80GB").sustained_matmul);
  CHECK_FALSE(find_gpu("MI300X-192GB").sustained_matmul);
  // The constant-efficiency roofline does not take it: its 0.7 is already a training step's rate.
  const ModelSpec llama = find_model("llama3-8b");
  const Layer& up = *find_layer(llama, "layers.0.mlp.up_proj");
  GpuSpec quiet = find_gpu("H100-SXM-80GB");
  quiet.sustained_matmul.reset();
  CHECK(ComputeModel(find_gpu("H100-SXM-80GB"), Precision::bf16).forward(up, 1) ==
        ComputeModel(quiet, Precision::bf16).forward(up, 1));
}

TEST_CASE("kernels by shape only where model.kernels asks for them", "[kernel_model]") {
  const ModelSpec llama = find_model("llama3-8b");
  const Layer& up = *find_layer(llama, "layers.0.mlp.up_proj");
  const GpuSpec h100 = find_gpu("H100-SXM-80GB");
  CHECK_FALSE(ComputeModel(h100, Precision::bf16).shaped(up));
  CHECK(ComputeModel(h100, Precision::bf16, {.kernels = KernelStyle::eager}).shaped(up));
  CHECK_FALSE(ComputeModel(h100, Precision::bf16, {.efficiency = 0.7, .kernels = KernelStyle::eager}).shaped(up));
  // A CNN's layers carry no shape: the constant roofline whatever the options.
  const ModelSpec r50 = find_model("resnet50");
  CHECK_FALSE(ComputeModel(h100, Precision::bf16, {.kernels = KernelStyle::fused}).shaped(r50.layers().front()));
}

TEST_CASE("a GPU without a published best GEMM keeps its GEMMs on the constant roofline", "[kernel_model]") {
  CHECK_FALSE(KernelModel(find_gpu("L40S"), KernelStyle::fused).shapes_gemms());
  const ComputeModel l40s(find_gpu("L40S"), Precision::bf16, {.kernels = KernelStyle::fused});
  const ModelSpec llama = find_model("llama3-8b");
  const Layer& up = *find_layer(llama, "layers.0.mlp.up_proj");
  CHECK_FALSE(l40s.shaped(up));
  CHECK(l40s.forward(up, 1) == SimTime::from_seconds(l40s.roofline(up, 1).compute_seconds) + SimTime::from_us(5));
}

TEST_CASE("flash attention scales with head dimension, sequence and the causal mask", "[kernel_model]") {
  const KernelModel fused(find_gpu("H100-SXM-80GB"), KernelStyle::fused);
  const KernelModel eager(find_gpu("H100-SXM-80GB"), KernelStyle::eager);
  const double at16k = 16384.0 / (16384 + 200);
  // At the measured point the rate is the published one, sustained: cuDNN 595, FlashAttention-2 338 of 989.4
  // TFLOP/s, each a burst on a quiet GPU, at the clock a saturated board holds.
  CHECK(*fused.attention(128, 16384, false) == Approx(595 / 989.4 * kSustained));
  CHECK(*eager.attention(128, 16384, false) == Approx(338 / 989.4 * kSustained));
  CHECK(*fused.attention(64, 16384, false) == Approx(595 / 989.4 * kSustained * 497 / 648));
  CHECK(*fused.attention(256, 16384, false) == Approx(595 / 989.4 * kSustained * 756 / 648));
  // 4096 tokens: s/(s+200) against the 16k point's.
  CHECK(*fused.attention(128, 4096, false) == Approx(595 / 989.4 * kSustained * 4096 / 4296 / at16k));
  // Causal at 1024 tokens: 8 rows of 128-token tiles, 36 of 64 tiles run: 9/16 of the time on the counted FLOPs.
  CHECK(*fused.attention(128, 1024, true) == Approx(*fused.attention(128, 1024, false) * 16 / 9));
  CHECK_FALSE(KernelModel(find_gpu("L40S"), KernelStyle::fused).attention(128, 4096, false));
}

TEST_CASE("one rank's GEMM splits the dimension its tensor parallelism splits", "[kernel_model]") {
  // PyTorch's separate modules (torchtitan's w3): the up-projection is a GEMM of its own.
  const ComputeModel h100(find_gpu("H100-SXM-80GB"), Precision::bf16, {.kernels = KernelStyle::eager});
  const ModelSpec llama = find_model("llama3-8b");  // 8192 tokens, hidden 4096, MLP 14336
  const Layer& up = *find_layer(llama, "layers.0.mlp.up_proj");
  const Layer& down = *find_layer(llama, "layers.0.mlp.down_proj");
  REQUIRE(up.shape.split == TensorSplit::outputs);
  REQUIRE(down.shape.split == TensorSplit::inputs);
  CHECK(find_layer(llama, "layers.0.self_attn.q_proj")->shape.split == TensorSplit::outputs);
  CHECK(find_layer(llama, "layers.0.self_attn.o_proj")->shape.split == TensorSplit::inputs);
  const KernelModel model(find_gpu("H100-SXM-80GB"), KernelStyle::fused);
  const RankSplit tp8{.tensor = 8};
  CHECK(h100.forward_tile(up, 1, tp8).efficiency ==
        Approx(model.gemm({.m = 8192, .n = 1792, .k = 4096}).efficiency).epsilon(1e-12));
  CHECK(h100.forward_tile(down, 1, tp8).efficiency ==
        Approx(model.gemm({.m = 8192, .n = 4096, .k = 1792}).efficiency).epsilon(1e-12));
  // The forward is the FLOPs of one rank at that efficiency, plus the kernel overhead.
  const double seconds = 2.0 * 8192 * 1792 * 4096 / (989.4e12 * h100.forward_tile(up, 1, tp8).efficiency);
  CHECK(h100.forward(up, 1, tp8).seconds() == Approx(seconds + 5e-6).epsilon(1e-6));
  // Micro-batch 2 runs the rank's GEMMs more efficiently: less than twice micro-batch 1's time.
  CHECK(h100.forward(up, 2, tp8) < h100.forward(up, 1, tp8).scaled(2 * 0.95));
}

TEST_CASE("eager PyTorch runs the memory-bound layers as more kernels moving more bytes", "[kernel_model]") {
  const ModelSpec llama = find_model("llama3-8b");
  const Layer& norm = *find_layer(llama, "layers.0.input_layernorm");
  const ComputeModel fused(find_gpu("H100-SXM-80GB"), Precision::bf16, {.kernels = KernelStyle::fused});
  const ComputeModel eager(find_gpu("H100-SXM-80GB"), Precision::bf16, {.kernels = KernelStyle::eager});
  // 8192 x 4096 elements read and written at 2 bytes, plus the 4096 weights, at 0.87 of 3.35 TB/s.
  const double bytes = 2.0 * (4096 + 2 * 8192 * 4096);
  const double stream = 3350e9 * kStreamingFraction;
  CHECK(fused.forward(norm, 1).seconds() == Approx(bytes / stream + 5e-6).epsilon(1e-6));
  CHECK(eager.forward(norm, 1).seconds() == Approx(9 * bytes / stream + 7 * 5e-6).epsilon(1e-6));
  // SwiGLU's silu is folded into its product when fused: no kernel, no bytes.
  CHECK(fused.forward(*find_layer(llama, "layers.0.mlp.silu"), 1) == SimTime::zero());
  CHECK(eager.forward(*find_layer(llama, "layers.0.mlp.silu"), 1) > SimTime::zero());
}

TEST_CASE("compiled blocks run their own layers fused, the layers between them eager, attention as PyTorch's",
          "[kernel_model]") {
  const ModelSpec llama = find_model("llama3-8b");
  const GpuSpec h100 = find_gpu("H100-SXM-80GB");
  const ComputeModel fused(h100, Precision::bf16, {.kernels = KernelStyle::fused});
  const ComputeModel eager(h100, Precision::bf16, {.kernels = KernelStyle::eager});
  const ComputeModel compiled(h100, Precision::bf16, {.kernels = KernelStyle::compiled});
  // Inside a block (torchtitan compiles each TransformerBlock): the norm, SwiGLU's silu and rotary as fused.
  for (const char* name : {"layers.0.input_layernorm", "layers.0.mlp.silu", "layers.31.post_attention_layernorm"}) {
    const Layer& layer = *find_layer(llama, name);
    INFO(name);
    CHECK(layer.shape.in_block);
    CHECK(compiled.forward(layer, 1) == fused.forward(layer, 1));
    CHECK(compiled.backward(layer, 1) == fused.backward(layer, 1));
  }
  // Between blocks (the final norm, the loss): not compiled, eager's kernels and bytes (fused runs Megatron's own
  // loss, megatron_loss_test).
  for (const char* name : {"norm", "loss"}) {
    const Layer& layer = *find_layer(llama, name);
    INFO(name);
    CHECK_FALSE(layer.shape.in_block);
    CHECK(compiled.forward(layer, 1) == eager.forward(layer, 1));
  }
  CHECK(compiled.forward(*find_layer(llama, "norm"), 1) > fused.forward(*find_layer(llama, "norm"), 1));
  // Inductor calls scaled_dot_product_attention as eager PyTorch does: FlashAttention-2's rate, not cuDNN's.
  const Layer& attention = *find_layer(llama, "layers.0.self_attn.flash_attention");
  CHECK(compiled.forward(attention, 1) == eager.forward(attention, 1));
  CHECK(compiled.forward(attention, 1) > fused.forward(attention, 1));
  CHECK(*KernelModel(h100, KernelStyle::compiled).attention(128, 16384, false) == Approx(338 / 989.4 * kSustained));
  // GEMMs are cuBLAS's whoever calls them, each module's its own.
  const Layer& up = *find_layer(llama, "layers.0.mlp.up_proj");
  CHECK(compiled.forward(up, 1) == eager.forward(up, 1));
}

TEST_CASE("a block's linear layer right after a norm has its input quantized by the norm", "[kernel_model]") {
  // Megatron's TELayerNormColumnParallelLinear: the input norm with QKV (its first layer, Q), the post-attention norm
  // with FC1 (gate); the projections after attention and SwiGLU cast their own, the LM head stays 16-bit.
  const ModelSpec llama = find_model("llama3-8b");
  for (const char* name : {"layers.0.self_attn.q_proj", "layers.0.mlp.gate_proj", "layers.31.self_attn.q_proj"}) {
    INFO(name);
    CHECK(find_layer(llama, name)->shape.cast_by_norm);
  }
  for (const char* name : {"layers.0.self_attn.k_proj", "layers.0.self_attn.o_proj", "layers.0.mlp.up_proj",
                           "layers.0.mlp.down_proj", "lm_head"}) {
    INFO(name);
    CHECK_FALSE(find_layer(llama, name)->shape.cast_by_norm);
  }
  // Each norm writes its s x h output (8192 x 4096 a sample) for the GEMM after it; the final norm for none.
  CHECK(find_layer(llama, "layers.0.input_layernorm")->shape.quantized_output_elements == 8192 * 4096);
  CHECK(find_layer(llama, "layers.0.post_attention_layernorm")->shape.quantized_output_elements == 8192 * 4096);
  CHECK(find_layer(llama, "norm")->shape.quantized_output_elements == 0);
  // A MoE block's norm feeds the router, which stays 16-bit (Megatron's pre-MLP norm is a layer of its own there).
  const ModelSpec mixtral = find_model("mixtral-8x7b");
  CHECK_FALSE(find_layer(mixtral, "layers.0.mlp.router")->shape.cast_by_norm);
  CHECK(find_layer(mixtral, "layers.0.post_attention_layernorm")->shape.quantized_output_elements == 0);
  CHECK(find_layer(mixtral, "layers.0.self_attn.q_proj")->shape.cast_by_norm);
}

TEST_CASE("Megatron's fused projections run as one GEMM: Q, K and V together, gate and up together", "[kernel_model]") {
  // Llama 3 8B: Q 4096 wide, K and V 1024 each (8 KV heads of 128); gate and up 14336 each.
  const ModelSpec llama = find_model("llama3-8b");
  const GpuSpec h100 = find_gpu("H100-SXM-80GB");
  for (const char* name : {"layers.0.self_attn.q_proj", "layers.0.self_attn.k_proj", "layers.0.self_attn.v_proj"}) {
    CHECK(find_layer(llama, name)->shape.fused_rows == 6144);
  }
  CHECK(find_layer(llama, "layers.0.mlp.gate_proj")->shape.fused_rows == 28672);
  CHECK(find_layer(llama, "layers.0.mlp.up_proj")->shape.fused_rows == 28672);
  CHECK(find_layer(llama, "layers.0.self_attn.o_proj")->shape.fused_rows == 4096);
  const ComputeModel fused(h100, Precision::bf16, {.kernels = KernelStyle::fused});
  const ComputeModel eager(h100, Precision::bf16, {.kernels = KernelStyle::eager});
  const KernelModel model(h100, KernelStyle::fused);
  // At TP 8, K on its own is 8192 x 128 x 4096: 64 x 2 = 128 tiles of 128x64 (half the operand reuse), one wave,
  // 0.5 x 128/132; in linear_qkv, 8192 x 768: 32 x 6 = 192 tiles of 256x128, 2 waves, 192/264. Each layer runs its own
  // FLOPs at its GEMM's efficiency.
  const RankSplit tp8{.tensor = 8};
  const Layer& k = *find_layer(llama, "layers.0.self_attn.k_proj");
  CHECK(fused.forward_tile(k, 1, tp8).efficiency == Approx(model.gemm({.m = 8192, .n = 768, .k = 4096}).efficiency));
  CHECK(eager.forward_tile(k, 1, tp8).efficiency == Approx(model.gemm({.m = 8192, .n = 128, .k = 4096}).efficiency));
  CHECK(model.gemm({.m = 8192, .n = 768, .k = 4096}).tiles == 192);
  CHECK(model.gemm({.m = 8192, .n = 128, .k = 4096}).tiles == 128);
  CHECK(fused.forward_tile(k, 1, tp8).efficiency / eager.forward_tile(k, 1, tp8).efficiency ==
        Approx((192.0 / 264) / (0.5 * 128 / 132)));
  const double seconds = 2.0 * 8192 * 128 * 4096 / (989.4e12 * fused.forward_tile(k, 1, tp8).efficiency);
  CHECK(fused.forward(k, 1, tp8).seconds() == Approx(seconds + 5e-6).epsilon(1e-6));
  CHECK(fused.forward(k, 1, tp8) < eager.forward(k, 1, tp8));
}

TEST_CASE("a power cap slows compute-bound kernels by the cube root of the cap", "[kernel_model]") {
  const GpuSpec h100 = find_gpu("H100-SXM-80GB");
  CHECK(power_clock_factor(h100, 500) == Approx(std::cbrt(500.0 / 700)));
  CHECK(power_clock_factor(h100, std::nullopt) == 1);
  CHECK_THROWS_WITH(power_clock_factor(h100, 800), Catch::Contains("(0, 700] W") && Catch::Contains("H100-SXM-80GB"));
  CHECK_THROWS_WITH(power_clock_factor(make_gpu_spec("x", {.fp32 = 1e12}, Bandwidth::from_gb_per_s(1), Bytes{1}), 300),
                    Catch::Contains("no board power"));
  const ModelSpec llama = find_model("llama3-8b");
  const Layer& up = *find_layer(llama, "layers.0.mlp.up_proj");
  const Layer& norm = *find_layer(llama, "layers.0.input_layernorm");
  const ComputeModel full(h100, Precision::bf16, {.kernels = KernelStyle::fused});
  const ComputeModel capped(h100, Precision::bf16, {.kernels = KernelStyle::fused, .power_limit_watts = 500});
  const SimTime overhead = SimTime::from_us(5);
  CHECK((capped.forward(up, 1) - overhead).seconds() ==
        Approx((full.forward(up, 1) - overhead).seconds() / std::cbrt(500.0 / 700)).epsilon(1e-6));
  CHECK(capped.forward(norm, 1) == full.forward(norm, 1));  // the HBM clock is not capped
}
