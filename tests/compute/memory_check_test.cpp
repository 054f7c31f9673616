#include <catch2/catch.hpp>

#include "syncsim/compute/memory_check.hpp"
#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/core/input_error.hpp"
#include "toy_gpu.hpp"

using namespace syncsim;
using namespace syncsim::toy_gpu;

namespace {}

TEST_CASE("bert-large with Adam in fp32 at batch 8 (seq 512) does not fit a 16 GB V100", "[memory_check]") {
  // System: P = 335,141,888 parameters; s = 512, h = 1024, a = 16, L = 24; fp32 (4-byte activations); eager
  // attention (the a·s² probabilities kept, as Korthikanti et al. count them).
  //   weights 4P, gradients 4P, Adam moments 8P                      = 16P = 5,362,270,208 B
  //   per layer: 16·s·h elements x 4 B + 2·s·h mask bytes            = 66·s·h
  //              2·a·s² elements x 4 B + a·s² mask bytes             =  9·a·s²
  //   outside the layers: embedding norm input (s·h x 4 B), its dropout mask (s·h), pooler (2·h x 4 B)
  //   per sample: 24 x (66·524,288 + 9·4,194,304) + 5·524,288 + 8·1024 = 1,739,071,488 B
  //   batch 8: 13,912,571,904 B; tensors 19,274,842,112 B, + the cuBLAS workspace (V100: 8 MiB + 128 KiB =
  //   8,519,680 B) = 19,283,361,792 B allocated and reserved (nothing recomputed or gathered per layer), + the CUDA
  //   context (400,000,000 B; one GPU, no NCCL communicator) = 19,683,361,792 B against 16 GiB = 17,179,869,184 B:
  //   short by 2,503,492,608 B. BertModel has no LM head, so no loss buffers.
  const ModelSpec bert = find_model("bert-large", {.attention = AttentionKernel::eager});
  const MemoryReport r = memory_check(bert, find_gpu("V100-SXM2-16GB"), 8, Precision::fp32, Optimizer::adam);
  constexpr std::int64_t P = 335'141'888;
  CHECK(r.weights.value == 4 * P);
  CHECK(r.gradients.value == 4 * P);
  CHECK(r.optimizer_state.value == 8 * P);
  const std::int64_t sh = 512 * 1024;
  const std::int64_t as2 = 16 * 512 * 512;
  const std::int64_t per_sample = 24 * (66 * sh + 9 * as2) + 5 * sh + 8 * 1024;
  CHECK(per_sample == 1'739'071'488);
  CHECK(r.activations.value == 8 * per_sample);
  CHECK(r.loss_buffers.value == 0);
  CHECK(r.allocated.value == 19'283'361'792);
  CHECK(r.reserved == r.allocated);
  CHECK(r.total.value == 19'683'361'792);
  CHECK(r.capacity.value == 16 * kGiB);
  CHECK_FALSE(r.fits);
  CHECK(r.shortfall.value == 2'503'492'608);
  // The 32 GB V100 holds it.
  const MemoryReport big = memory_check(bert, find_gpu("V100-SXM2-32GB"), 8, Precision::fp32, Optimizer::adam);
  CHECK(big.fits);
  CHECK(big.shortfall.value == 0);
  // So does the 16 GB one with flash attention: per layer 66·s·h bytes as before, and instead of the 9·a·s² the
  // softmax statistics, 8 bytes per row per head (8·a·s); 24 x (66·524,288 + 8·8,192) + 5·524,288 + 8·1024
  // = 834,674,688 B per sample, 6,677,397,504 at batch 8, 12,039,667,712 B of tensors, 12,448,187,392 B with the
  // workspace and the context.
  const MemoryReport flash =
      memory_check(find_model("bert-large"), find_gpu("V100-SXM2-16GB"), 8, Precision::fp32, Optimizer::adam);
  CHECK(24 * (66 * sh + 8 * 16 * 512) + 5 * sh + 8 * 1024 == 834'674'688);
  CHECK(flash.allocated.value == 16 * P + 8 * 834'674'688LL + 8'519'680);
  CHECK(flash.total.value == 12'448'187'392);
  CHECK(flash.fits);
}

TEST_CASE("resnet50 at batch 64 fits an 80 GB A100 many times over", "[memory_check]") {
  // System: P = 25,557,032; 21,075,968 activation elements kept per 224x224 image (each tensor once); fp32 Adam.
  //   16P = 408,912,512 B; activations 64 x 21,075,968 x 4 B = 5,395,447,808 B; tensors 5,804,360,320 B; with the
  //   cuBLAS workspace (A100: 8,519,680 B) and the CUDA context (400,000,000 B) 6,212,880,000 B < 80 GiB.
  const ModelSpec r50 = find_model("resnet50");
  CHECK(r50.saved_elements() == 21'075'968);
  const MemoryReport r = memory_check(r50, find_gpu("A100-80GB"), 64, Precision::fp32, Optimizer::adam);
  CHECK(r.weights.value + r.gradients.value + r.optimizer_state.value == 16 * 25'557'032LL);
  CHECK(r.activations.value == 5'395'447'808);
  CHECK(r.allocated.value == 5'804'360'320 + 8'519'680);
  CHECK(r.total.value == 6'212'880'000);
  CHECK(r.capacity.value == 80 * kGiB);
  CHECK(r.fits);
  CHECK(r.shortfall.value == 0);
}

TEST_CASE("mixed precision trades 16-bit weights and gradients for FP32 master weights", "[memory_check]") {
  // ZeRO's accounting: Adam costs 16 bytes per parameter either way (4+4+8 or 2+2+12); SGD 8 (4+4+0 or 2+2+4).
  const ModelSpec gpt2 = find_model("gpt2");
  const GpuSpec h100 = find_gpu("H100-SXM");
  const std::int64_t P = gpt2.params();
  const auto states = [&](Precision p, Optimizer o) {
    const MemoryReport r = memory_check(gpt2, h100, 1, p, o);
    return r.weights.value + r.gradients.value + r.optimizer_state.value;
  };
  CHECK(states(Precision::fp32, Optimizer::adam) == 16 * P);
  CHECK(states(Precision::bf16, Optimizer::adam) == 16 * P);
  CHECK(states(Precision::fp16, Optimizer::sgd) == 8 * P);
  CHECK(states(Precision::tf32, Optimizer::momentum) == 12 * P);
  const MemoryReport mixed = memory_check(gpt2, h100, 4, Precision::fp16, Optimizer::adam);
  CHECK(mixed.weights.value == 2 * P);
  CHECK(mixed.optimizer_state.value == 12 * P);
  // Activations: 16-bit elements, 1-byte masks, linear in the batch.
  CHECK(mixed.activations.value == 4 * (2 * gpt2.saved_elements() + gpt2.saved_mask_bytes()));
  CHECK_THROWS_AS(memory_check(gpt2, h100, 0, Precision::fp16, Optimizer::adam), InputError);
}

TEST_CASE("a 7B model with Adam does not fit one 80 GB GPU even at batch 1", "[memory_check]") {
  // 16 x 6,738,415,616 = 107.8 GB of weights, gradients and Adam state alone.
  const MemoryReport r =
      memory_check(find_model("llama-7b"), find_gpu("A100-80GB"), 1, Precision::bf16, Optimizer::adam);
  CHECK_FALSE(r.fits);
  CHECK(r.shortfall.value > 16 * 6'738'415'616LL - 80 * kGiB);
}

TEST_CASE("fp8 keeps bf16's state plus the block GEMMs' FP8 weights, as is and transposed", "[memory_check]") {
  // LLaMA-7B: 32 blocks of 4·4096² attention and 3·4096·11008 MLP weights are the GEMMs a scaled recipe runs in
  // FP8; each keeps 2 bytes more (1 + 1, the transposed copy). Everything else equals bf16's.
  const ModelSpec llama = find_model("llama-7b");
  const GpuSpec h100 = find_gpu("H100-SXM-80GB");
  const std::int64_t block_gemms = 32 * (4 * 4096LL * 4096 + 3 * 4096LL * 11008);
  const MemoryReport bf16 = memory_check(llama, h100, 1, Precision::bf16, Optimizer::adam);
  const MemoryReport fp8 = memory_check(llama, h100, 1, Precision::fp8, Optimizer::adam);
  CHECK(fp8.weights.value - bf16.weights.value == 2 * block_gemms);
  CHECK(fp8.gradients == bf16.gradients);
  CHECK(fp8.optimizer_state == bf16.optimizer_state);
  CHECK(fp8.activations == bf16.activations);
  // Tensor parallelism splits the copies with the weights; MXFP8 adds a scale byte per 32 elements to each.
  const MemoryReport split = memory_check(llama, h100, 1, Precision::fp8, Optimizer::adam, {.tensor = 4});
  const MemoryReport split_bf16 = memory_check(llama, h100, 1, Precision::bf16, Optimizer::adam, {.tensor = 4});
  CHECK(split.weights.value - split_bf16.weights.value == 2 * block_gemms / 4);
  const MemoryReport mx = memory_check(llama, find_gpu("B200"), 1, Precision::mxfp8, Optimizer::adam);
  const MemoryReport mx_bf16 = memory_check(llama, find_gpu("B200"), 1, Precision::bf16, Optimizer::adam);
  CHECK(mx.weights.value - mx_bf16.weights.value == block_gemms * 2 * 33 / 32);
  // FP8 parameters under the distributed optimizer (Megatron's --fp8-param-gather): the block GEMMs' weights are held
  // in FP8 only, as is and transposed, 2 bytes where bf16 holds 2 and fp8 without them 4; the rest is unchanged.
  const MemoryLayout sharded{.sharding = ShardingLevel::optimizer, .shards = 8, .framework = MemoryFramework::megatron};
  MemoryLayout fp8_params = sharded;
  fp8_params.fp8_params = true;
  const MemoryReport kept = memory_check(llama, h100, 1, Precision::fp8, Optimizer::adam, sharded);
  const MemoryReport only_fp8 = memory_check(llama, h100, 1, Precision::fp8, Optimizer::adam, fp8_params);
  CHECK(kept.weights.value - only_fp8.weights.value == 2 * block_gemms);
  CHECK(only_fp8.weights == memory_check(llama, h100, 1, Precision::bf16, Optimizer::adam, sharded).weights);
  CHECK(only_fp8.gradients == kept.gradients);
  CHECK(only_fp8.optimizer_state == kept.optimizer_state);
}

TEST_CASE("Transformer Engine keeps the FP8 GEMMs' inputs for backward in FP8", "[memory_check]") {
  // Megatron's layout (Transformer Engine): per block, the norm's output before QKV (K and V share it) and before FC1
  // (gate and up share it), and the inputs of the projection (h wide) and of FC2 (11,008 wide) are kept at 1 byte
  // where bf16 keeps 2: 32 blocks x s x (3 x 4,096 + 11,008) bytes less. PyTorch's layout (torchao keeps the
  // high-precision inputs and casts again in backward) keeps them in bf16. MXFP8 keeps 1 + 1/32 bytes an element.
  const ModelSpec llama = find_model("llama-7b");
  const GpuSpec h100 = find_gpu("H100-SXM-80GB");
  const std::int64_t s = llama.transformer()->sequence;
  const std::int64_t inputs = 32 * s * (3 * 4096 + 11008);
  const MemoryLayout megatron{.framework = MemoryFramework::megatron};
  const MemoryReport bf16 = memory_check(llama, h100, 1, Precision::bf16, Optimizer::adam, megatron);
  const MemoryReport fp8 = memory_check(llama, h100, 1, Precision::fp8, Optimizer::adam, megatron);
  CHECK(bf16.activations.value - fp8.activations.value == inputs);
  CHECK(memory_check(llama, h100, 1, Precision::fp8, Optimizer::adam).activations ==
        memory_check(llama, h100, 1, Precision::bf16, Optimizer::adam).activations);
  const GpuSpec b200 = find_gpu("B200");
  const MemoryReport mx = memory_check(llama, b200, 1, Precision::mxfp8, Optimizer::adam, megatron);
  const MemoryReport mx_bf16 = memory_check(llama, b200, 1, Precision::bf16, Optimizer::adam, megatron);
  CHECK(mx_bf16.activations.value - mx.activations.value ==
        Approx(static_cast<double>(inputs) * 31 / 32).margin(4 * 32));
}
