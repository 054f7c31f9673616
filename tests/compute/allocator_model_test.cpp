// The memory check as the allocator reports it (allocator_model.hpp, memory_check.hpp): the peak allocated and
// reserved, the CUDA context and NCCL's buffers, Megatron's and PyTorch's layouts, and 1F1B against the interleaved
// schedule, each against a hand calculation written out in the test.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "syncsim/compute/allocator_model.hpp"
#include "syncsim/compute/memory_check.hpp"
#include "syncsim/compute/model_catalog.hpp"
#include "toy_gpu.hpp"

using namespace syncsim;
using namespace syncsim::toy_gpu;

namespace {

constexpr std::int64_t kMiB = std::int64_t{1} << 20;
// One NCCL communicator: 24 channels x 2 ring peers x (LL 512 KiB + LL128 4,800 KiB + Simple 4 MiB).
constexpr std::int64_t kCommunicator = 24 * 2 * (512 * 1024 + 4800 * 1024 + 4 * kMiB);
constexpr std::int64_t kContext = 400'000'000;
constexpr std::int64_t kCublasSm90 = 32 * kMiB;

// 8 transformer blocks of one layer each (100 parameters, `saved` elements kept per sample), and when `head` an LM
// head over a vocabulary of 1,000 (10,000 parameters; 1,000 logits per token) and its loss, which keeps the logits'
// FP32 softmax (4,000 bytes per token), after them.
ModelSpec blocks(std::int64_t saved, bool head, std::int64_t sequence = 1) {
  std::vector<Layer> layers;
  TransformerStructure t;
  t.hidden = 1;
  t.sequence = sequence;
  t.kv_width = 1;
  for (int b = 0; b < 8; ++b) {
    layers.push_back({.name = fmt::format("block{}", b), .params = 100, .forward_flops = 100, .saved_elements = saved});
    t.blocks.emplace_back(b, b + 1);
  }
  if (head) {
    layers.push_back({.name = "head",
                      .params = 10'000,
                      .forward_flops = 100,
                      .activation_elements_moved = sequence * (10 + 1'000),
                      .weight_rows = 1'000,
                      .weight_cols = 10,
                      .weight_matrices = 1,
                      .kind = LayerKind::gemm_kept});
    layers.push_back({.name = "loss",
                      .forward_flops = 100,
                      .activation_elements_moved = sequence * 2 * 1'000,
                      .saved_mask_bytes = sequence * 4 * 1'000,
                      .shape = {.loss = true}});
  }
  return ModelSpec("blocks", layers, t);
}

const GpuSpec& h100() {
  static const GpuSpec gpu = find_gpu("H100-SXM-80GB");
  return gpu;
}

}  // namespace

TEST_CASE("the allocator's terms: cuBLAS workspace by generation, CUDA context, NCCL per communicator, the reserve") {
  CHECK(cublas_workspace(h100()).value == 32 * kMiB);                                  // ":4096:8" on sm90
  CHECK(cublas_workspace(find_gpu("A100-SXM4-80GB")).value == 8 * kMiB + 128 * 1024);  // ":4096:2:16:8"
  CHECK(transformer_engine_workspace(h100()).value == 32 * kMiB + 1024);
  CHECK(transformer_engine_workspace(find_gpu("A100-SXM4-80GB")).value == 4 * kMiB);
  CHECK(cuda_context(h100()).value == kContext);
  // 24 x 2 x 9,633,792 B = 462,422,016 B = 441 MiB per communicator.
  CHECK(nccl_buffers(1).value == 462'422'016);
  CHECK(nccl_buffers(3).value == 3 * 462'422'016);
  // Churning 85 bytes at GMLake's 15 % leaves 85 x 0.15 / 0.85 = 15 free bytes: reserved 115 for 100 allocated.
  CHECK(reserved_bytes(Bytes{100}, Bytes{85}, true).value == 115);
  CHECK(reserved_bytes(Bytes{100}, Bytes{85}, false).value == 100);
}

TEST_CASE("1F1B and interleaved report different peaks: the first stage's passes in flight, allocated and reserved") {
  // System: the 8 blocks keep 2^29 elements each per sample (1 GiB in bf16), p = 4 stages, m = 8 micro-batches,
  // batch 1, bf16 + Adam, PyTorch's layout on an H100 (no data parallelism: the pipeline's is the one communicator).
  //
  // 1F1B: stage 0 holds blocks 0-1 (200 parameters) and keeps min(p, m) = 4 micro-batches of 2 GiB: 8 GiB.
  //   state    200 x (2 + 2 + 12) = 3,200 B
  //   allocated = 3,200 + 8 GiB + 32 MiB (cuBLAS, sm90) = 8,623,492,224 B; nothing recomputed or gathered per
  //   layer, so reserved = allocated
  //   total     = reserved + 400,000,000 (context) + 462,422,016 (NCCL, one communicator) = 9,485,914,240 B
  // Interleaved, v = 2: stage 0 holds chunks 0 and 4 (blocks 0 and 4: 200 parameters again); Megatron's warm-up
  //   is 2 (p - 1) + (v - 1) p = 10 passes and one more before the first backward: 11 passes of one 1 GiB block
  //   (7 of chunk 0, 4 of chunk 1): 11 GiB, Korthikanti's 1 + (p - 1)/(p v) = 1.375 times 1F1B's.
  //   allocated = 3,200 + 11 GiB + 32 MiB = 11,844,717,696 B; total 12,707,139,712 B
  const ModelSpec model = blocks(std::int64_t{1} << 29, false);
  const auto check = [&](PipelineSchedule schedule, std::int64_t v) {
    return memory_check(model, h100(), 1, Precision::bf16, Optimizer::adam,
                        {.pipeline = 4, .micro_batches = 8, .schedule = schedule, .virtual_stages = v});
  };
  const MemoryReport one_f_one_b = check(PipelineSchedule::one_f_one_b, 1);
  const MemoryReport interleaved = check(PipelineSchedule::interleaved, 2);
  CHECK(one_f_one_b.stage == 0);
  CHECK(one_f_one_b.weights.value + one_f_one_b.gradients.value + one_f_one_b.optimizer_state.value == 3'200);
  CHECK(one_f_one_b.activations.value == 8 * kGiB);
  CHECK(one_f_one_b.workspaces.value == kCublasSm90);
  CHECK(one_f_one_b.allocated.value == 8'623'492'224);
  CHECK(one_f_one_b.reserved == one_f_one_b.allocated);
  CHECK(one_f_one_b.communicators == 1);
  CHECK(one_f_one_b.total.value == 9'485'914'240);
  CHECK(interleaved.stage == 0);
  CHECK(interleaved.in_flight == 11);
  CHECK(interleaved.activations.value == 11 * kGiB);
  CHECK(interleaved.allocated.value == 11'844'717'696);
  CHECK(interleaved.reserved == interleaved.allocated);
  CHECK(interleaved.total.value == 12'707'139'712);
  // GPipe keeps all 8 micro-batches of stage 0's two blocks: 16 GiB.
  CHECK(check(PipelineSchedule::gpipe, 1).activations.value == 16 * kGiB);
}

TEST_CASE("Megatron's layout: FP32 main grads, the distributed optimizer over data x context, the 16-bit logits") {
  // System: the 8 blocks (10 elements kept each) and the LM head (10,000 parameters, 1,000 logits), one token, TP 2,
  // 4 data-parallel ranks, ZeRO-1, bf16 + Adam, batch 1 on an H100. Per GPU: (800 + 10,000) / 2 = 5,400 parameters.
  //   Megatron: weights 2 x 5,400 = 10,800; main grads 4 x 5,400 = 21,600; optimizer 12 x 5,400 / 4 = 16,200;
  //     activations (8 x 10 x 2 + the loss's FP32 softmax 4,000) / 2 = 2,080; the loss's 16-bit logits beside their
  //     FP32 copy 2 x 1,000 / 2 = 1,000; workspaces PyTorch's 32 MiB + Transformer Engine's 32 MiB + 1 KiB =
  //     67,109,888; allocated 10,800 + 21,600 + 16,200 + 2,080 + 1,000 + 67,109,888 = 67,161,568 = reserved;
  //     2 communicators (tensor, data): total 67,161,568 + 400,000,000 + 924,844,032 = 1,392,005,600
  //   PyTorch: gradients 2 x 5,400 = 10,800; loss_parallel's three FP32 tensors beside the kept log-softmax,
  //     12 x 1,000 / 2 = 6,000; one workspace
  const ModelSpec model = blocks(10, true);
  const MemoryLayout layout{.tensor = 2,
                            .sharding = ShardingLevel::optimizer,
                            .shards = 4,
                            .data = 4,
                            .framework = MemoryFramework::megatron};
  const MemoryReport megatron = memory_check(model, h100(), 1, Precision::bf16, Optimizer::adam, layout);
  CHECK(megatron.weights.value == 10'800);
  CHECK(megatron.gradients.value == 21'600);
  CHECK(megatron.optimizer_state.value == 16'200);
  CHECK(megatron.activations.value == 2'080);
  CHECK(megatron.loss_buffers.value == 1'000);
  CHECK(megatron.workspaces.value == 67'109'888);
  CHECK(megatron.allocated.value == 67'161'568);
  CHECK(megatron.reserved == megatron.allocated);
  CHECK(megatron.communicators == 2);
  CHECK(megatron.total.value == 1'392'005'600);
  CHECK(megatron.fits);

  MemoryLayout pytorch_layout = layout;
  pytorch_layout.framework = MemoryFramework::pytorch;
  const MemoryReport pytorch = memory_check(model, h100(), 1, Precision::bf16, Optimizer::adam, pytorch_layout);
  CHECK(pytorch.gradients.value == 10'800);
  CHECK(pytorch.optimizer_state.value == 16'200);
  CHECK(pytorch.loss_buffers.value == 6'000);
  CHECK(pytorch.workspaces.value == kCublasSm90);

  // Context parallelism of 2 (4 tokens, 2 x 2 chunks): Megatron's optimizer shards over data x context = 8 ranks,
  // 12 x 5,400 / 8 = 8,100; the gradients stay whole; its data x context group is a third communicator.
  const ModelSpec four_tokens = blocks(10, true, 4);
  MemoryLayout cp = layout;
  cp.context = 2;
  const MemoryReport cp2 = memory_check(four_tokens, h100(), 1, Precision::bf16, Optimizer::adam, cp);
  CHECK(cp2.optimizer_state.value == 8'100);
  CHECK(cp2.gradients.value == 21'600);
  CHECK(cp2.communicators == 4);  // tensor, context, data, data x context
}

TEST_CASE("PyTorch's tensor parallelism keeps a column-parallel product's gathered input whole") {
  // System: one block of a column-parallel GEMM and a row-parallel one, each keeping 10 elements of its input per
  // sample, TP 2, batch 1, no checkpointing.
  //   Megatron saves both inputs sharded: (10 x 2 + 10 x 2) / 2 = 20 B.
  //   PyTorch's ColwiseParallel saves the all-gathered input, 10 x 2 = 20 B whole, the row-parallel one its shard,
  //     10 x 2 / 2 = 10 B: 30 B.
  //   Under fp8 torchao's Float8ColwiseParallel gathers, and keeps, the input in FP8: 10 x 1 = 10 B whole, + 10 B;
  //   Transformer Engine keeps both of Megatron's inputs in FP8, sharded: (10 x 1 + 10 x 1) / 2 = 10 B.
  TransformerStructure t;
  t.hidden = 1;
  t.sequence = 1;
  t.kv_width = 1;
  t.blocks.emplace_back(0, 2);
  const std::vector<Layer> layers = {{.name = "column",
                                      .params = 100,
                                      .forward_flops = 100,
                                      .saved_elements = 10,
                                      .kind = LayerKind::gemm,
                                      .shape = {.split = TensorSplit::outputs}},
                                     {.name = "row",
                                      .params = 100,
                                      .forward_flops = 100,
                                      .saved_elements = 10,
                                      .kind = LayerKind::gemm,
                                      .shape = {.split = TensorSplit::inputs}}};
  const ModelSpec model("tp-block", layers, t);
  const auto activations = [&](MemoryFramework framework, Precision precision) {
    const MemoryLayout layout{.tensor = 2, .framework = framework};
    return memory_check(model, h100(), 1, precision, Optimizer::adam, layout).activations.value;
  };
  CHECK(activations(MemoryFramework::megatron, Precision::bf16) == 20);
  CHECK(activations(MemoryFramework::pytorch, Precision::bf16) == 30);
  CHECK(activations(MemoryFramework::pytorch, Precision::fp8) == 20);
  CHECK(activations(MemoryFramework::megatron, Precision::fp8) == 10);
}

TEST_CASE("torchtitan's FSDP under a pipeline accumulates whole FP32 gradients and its Float8 keeps no weight copy") {
  // System: 2 blocks of one 100-parameter GEMM each, pipeline 2 (a block a stage), batch 1, Adam.
  //   FSDP over 4 ranks, bf16: the stage's chunk stays gathered, 2 x 100 = 200 B of weights; its gradients whole
  //     and accumulated in FSDP2's FP32 reduce dtype, 4 x 100 = 400 B; the optimizer state 12 x 100 / 4 = 300 B.
  //   The same in fp8: torchao casts the weights in each forward, so the weights stay 200 B.
  //   Megatron's ZeRO-1 in fp8: Transformer Engine caches the FP8 weight and its transpose, 200 + 2 x 1 x 100 = 400 B.
  TransformerStructure t;
  t.hidden = 1;
  t.sequence = 1;
  t.kv_width = 1;
  std::vector<Layer> layers;
  for (int b = 0; b < 2; ++b) {
    layers.push_back({.name = fmt::format("block{}", b),
                      .params = 100,
                      .forward_flops = 100,
                      .saved_elements = 10,
                      .kind = LayerKind::gemm});
    t.blocks.emplace_back(b, b + 1);
  }
  const ModelSpec model("gemm-blocks", layers, t);
  const MemoryLayout fsdp{.pipeline = 2, .sharding = ShardingLevel::full, .shards = 4, .data = 4};
  const MemoryReport bf16 = memory_check(model, h100(), 1, Precision::bf16, Optimizer::adam, fsdp);
  CHECK(bf16.weights.value == 200);
  CHECK(bf16.gradients.value == 400);
  CHECK(bf16.optimizer_state.value == 300);
  CHECK(memory_check(model, h100(), 1, Precision::fp8, Optimizer::adam, fsdp).weights.value == 200);
  const MemoryLayout megatron{.pipeline = 2,
                              .sharding = ShardingLevel::optimizer,
                              .shards = 4,
                              .data = 4,
                              .framework = MemoryFramework::megatron};
  CHECK(memory_check(model, h100(), 1, Precision::fp8, Optimizer::adam, megatron).weights.value == 400);
}

TEST_CASE("PyTorch's compiled loss keeps the 16-bit logits and writes a 16-bit gradient") {
  // System: the 8 blocks (10 elements kept each) and the head over 1,000 logits, one token, one GPU, bf16, batch 1.
  //   Eager: activations 8 x 10 x 2 + the FP32 log-softmax 4 x 1,000 = 4,160 B; cross_entropy's backward 8 x 1,000
  //     = 8,000 B.
  //   Compiled: the 16-bit logits 2 x 1,000 in place of the log-softmax: 2,160 B; the 16-bit gradient 2,000 B.
  const ModelSpec model = blocks(10, true);
  const MemoryReport eager = memory_check(model, h100(), 1, Precision::bf16, Optimizer::adam, {});
  CHECK(eager.activations.value == 4'160);
  CHECK(eager.loss_buffers.value == 8'000);
  const MemoryReport compiled =
      memory_check(model, h100(), 1, Precision::bf16, Optimizer::adam, {.compiled_loss = true});
  CHECK(compiled.activations.value == 2'160);
  CHECK(compiled.loss_buffers.value == 2'000);
  // Megatron's layout has its own loss, which the key does not touch.
  const MemoryLayout megatron{.framework = MemoryFramework::megatron};
  MemoryLayout megatron_compiled = megatron;
  megatron_compiled.compiled_loss = true;
  CHECK(memory_check(model, h100(), 1, Precision::bf16, Optimizer::adam, megatron_compiled).allocated ==
        memory_check(model, h100(), 1, Precision::bf16, Optimizer::adam, megatron).allocated);
}

TEST_CASE("recomputation fragments the cache: GMLake's 15 % of what a step allocates and frees is reserved too") {
  // System: the blocks with the head, full checkpointing, PyTorch's layout, one GPU, bf16 + Adam, batch 1.
  //   Each block keeps its input, 1 x 1 x 2 = 2 B: 16 B, the loss its FP32 softmax, 4,000 B, plus one block's whole
  //   activations while backward recomputes it, 10 x 2 = 20 B: activations 4,036 B.
  //   The loss's two FP32 gradients, 8 x 1,000 = 8,000 B, are never live with the recomputed block: loss buffers
  //   8,000 - 20 = 7,980 B above it.
  //   Churned: 4,036 + 7,980 = 12,016 B; fragmentation ceil(12,016 x 0.15 / 0.85) = ceil(2,120.47) = 2,121 B.
  const MemoryReport r = memory_check(blocks(10, true), h100(), 1, Precision::bf16, Optimizer::adam,
                                      {.checkpointing = ActivationCheckpointing::full});
  CHECK(r.activations.value == 4'036);
  CHECK(r.loss_buffers.value == 7'980);
  CHECK(r.fragmentation.value == 2'121);
  CHECK(r.reserved.value == r.allocated.value + 2'121);
  CHECK(r.communicators == 0);
  CHECK(r.nccl_buffers.value == 0);
  CHECK(r.total.value == r.reserved.value + kContext);
}
