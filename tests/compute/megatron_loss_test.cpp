// The loss as Megatron runs it (ComputeModel::megatron_loss): its vocabulary-parallel cross entropy's passes over the
// FP32 logits, fused (cross_entropy_loss_fusion) or as PyTorch ops, against hand-worked byte counts on the toy GPU
// (100 GB/s, 5 us a kernel).
#include <catch2/catch.hpp>

#include "syncsim/compute/compute_model.hpp"
#include "syncsim/compute/model_catalog.hpp"
#include "toy_gpu.hpp"

using namespace syncsim;

namespace {
// A million logits a sample (activation_elements_moved is 2 x the logits: read, and the softmax written).
const Layer kLoss{.name = "loss",
                  .forward_flops = 5'000'000,
                  .activation_elements_moved = 2'000'000,
                  .saved_mask_bytes = 4'000'000,
                  .shape = {.tokens = 1'000, .eager_kernels = 3, .eager_traffic = 3.5, .loss = true}};

// The seconds `bytes` take at 0.7 of the toy's 100 GB/s, plus `kernels` x 5 us, in microseconds.
double at_efficiency(double bytes, int kernels) {
  return bytes / (100e9 * 0.7) * 1e6 + 5.0 * kernels;
}
}  // namespace

TEST_CASE("Megatron's cross entropy moves the FP32 logits once a pass", "[compute]") {
  const double logits = 1e6;
  SECTION("unfused, 16-bit logits: upcast 2+4, max 4, subtract 8, exp 8, sum 4, divide 8; backward 8, cast 4+2") {
    const ComputeModel model(toy_gpu::toy(), Precision::fp16);
    CHECK(model.forward(kLoss, 1).us() == Approx(at_efficiency(38 * logits, 6)));
    CHECK(model.backward(kLoss, 1).us() == Approx(at_efficiency(14 * logits, 3)));
  }
  SECTION("fused: upcast with the max 2+4, subtract, exp and sum 4+4, divide 4+4; backward 4+2") {
    const ComputeModel model(toy_gpu::toy(), Precision::fp16, {.cross_entropy_loss_fusion = true});
    CHECK(model.forward(kLoss, 1).us() == Approx(at_efficiency(22 * logits, 3)));
    CHECK(model.backward(kLoss, 1).us() == Approx(at_efficiency(6 * logits, 1)));
    // Twice the samples, twice the bytes; a tensor rank a quarter of the vocabulary, a quarter of the time.
    CHECK(model.forward(kLoss, 2).us() == Approx(at_efficiency(44 * logits, 3)));
    CHECK(model.forward(kLoss, 1, {.tensor = 4}).us() == Approx(at_efficiency(22 * logits, 3) / 4));
  }
  SECTION("FP32 logits are not copied up, and backward casts nothing") {
    const ComputeModel unfused(toy_gpu::toy(), Precision::fp32);
    CHECK(unfused.forward(kLoss, 1).us() == Approx(at_efficiency(32 * logits, 6)));
    CHECK(unfused.backward(kLoss, 1).us() == Approx(at_efficiency(8 * logits, 3)));
    const ComputeModel fused(toy_gpu::toy(), Precision::fp32, {.cross_entropy_loss_fusion = true});
    CHECK(fused.forward(kLoss, 1).us() == Approx(at_efficiency(20 * logits, 3)));
    CHECK(fused.backward(kLoss, 1).us() == Approx(at_efficiency(8 * logits, 1)));
  }
}

TEST_CASE("only a Megatron run's loss is Megatron's cross entropy", "[compute]") {
  // By shape under fused kernels: the same bytes at the streaming fraction of the bandwidth.
  const ComputeModel shaped(toy_gpu::toy(), Precision::fp16,
                            {.kernels = KernelStyle::fused, .cross_entropy_loss_fusion = true});
  CHECK(shaped.forward(kLoss, 1).us() == Approx(22e6 / (100e9 * kStreamingFraction) * 1e6 + 15));
  // PyTorch's eager and compiled runs keep their own loss, whatever the flag says; so does a compiled loss.
  for (const KernelStyle style : {KernelStyle::eager, KernelStyle::compiled}) {
    const ComputeModel plain(toy_gpu::toy(), Precision::fp16, {.kernels = style});
    const ComputeModel flagged(toy_gpu::toy(), Precision::fp16, {.kernels = style, .cross_entropy_loss_fusion = true});
    CHECK(flagged.forward(kLoss, 1) == plain.forward(kLoss, 1));
    CHECK(flagged.backward(kLoss, 1) == plain.backward(kLoss, 1));
    const ComputeModel compiled(toy_gpu::toy(), Precision::fp16, {.kernels = style, .compiled_loss = true});
    CHECK(compiled.forward(kLoss, 1) < plain.forward(kLoss, 1));
  }
  // A layer that is not the loss is untouched by the flag.
  const ComputeModel plain(toy_gpu::toy(), Precision::fp16);
  const ComputeModel flagged(toy_gpu::toy(), Precision::fp16, {.cross_entropy_loss_fusion = true});
  CHECK(flagged.forward(toy_gpu::kElementwise, 1) == plain.forward(toy_gpu::kElementwise, 1));
}

TEST_CASE("the catalog's decoders end in Megatron's loss: Llama 3 8B's 128,256-token vocabulary", "[compute]") {
  // 8,192 tokens x 128,256 logits, BF16, on an H100 (3.35 TB/s at 0.7): fused 22 + 6 bytes a logit, unfused 38 + 14.
  const ModelSpec llama = find_model("llama3-8b");
  const Layer& loss = llama.layers().back();
  REQUIRE(loss.shape.loss);
  const double logits = 8'192.0 * 128'256;
  const GpuSpec h100 = find_gpu("H100-SXM-80GB");
  const double rate = h100.memory_bandwidth.bytes_per_second * kDefaultEfficiency;
  const ComputeModel fused(h100, Precision::bf16, {.cross_entropy_loss_fusion = true});
  const ComputeModel unfused(h100, Precision::bf16);
  const double fused_us = (fused.forward(loss, 1) + fused.backward(loss, 1)).us();
  const double unfused_us = (unfused.forward(loss, 1) + unfused.backward(loss, 1)).us();
  CHECK(fused_us == Approx(28 * logits / rate * 1e6 + 20));
  CHECK(unfused_us == Approx(52 * logits / rate * 1e6 + 45));
}
