// memory_check with a layout (memory_check.hpp): ZeRO's accounting per sharding level, tensor and context splits,
// pipeline stages and the micro-batches they keep in flight, each against a hand calculation.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "syncsim/compute/memory_check.hpp"
#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;

namespace {

// LLaMA-7B: P parameters; its two largest layers are the embedding table and the LM head, 32,000 x 4,096 each.
constexpr std::int64_t P = 6'738'415'616;
constexpr std::int64_t kTable = 32'000LL * 4'096;
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

MemoryReport llama(const MemoryLayout& layout, std::int64_t batch = 1) {
  return memory_check(find_model("llama-7b"), find_gpu("H100-SXM-80GB"), batch, Precision::bf16, Optimizer::adam,
                      layout);
}

}  // namespace

TEST_CASE("ZeRO's accounting: bf16 + Adam is 2 + 2 + 12 bytes per parameter, sharded level by level over 16 ranks") {
  const MemoryReport none = llama({});
  CHECK(none.weights.value == 2 * P);
  CHECK(none.gradients.value == 2 * P);
  CHECK(none.optimizer_state.value == 12 * P);
  // Beside them the loss's two FP32 gradients over the 2,048 x 32,000 logits (PyTorch's cross_entropy) and the
  // cuBLAS workspace.
  CHECK(none.loss_buffers.value == 8 * 2'048 * 32'000);
  CHECK(none.allocated.value == 16 * P + none.activations.value + none.loss_buffers.value + none.workspaces.value);

  const MemoryReport zero1 = llama({.sharding = ShardingLevel::optimizer, .shards = 16});
  CHECK(zero1.weights.value == 2 * P);
  CHECK(zero1.gradients.value == 2 * P);
  CHECK(zero1.optimizer_state.value == 12 * ceil_div(P, 16));

  const MemoryReport zero2 = llama({.sharding = ShardingLevel::gradients, .shards = 16});
  CHECK(zero2.weights.value == 2 * P);
  CHECK(zero2.gradients.value == 2 * ceil_div(P, 16));
  CHECK(zero2.optimizer_state.value == 12 * ceil_div(P, 16));

  // ZeRO-3 / FSDP: every state sharded, plus the layer being computed and the one prefetched, gathered whole.
  const MemoryReport zero3 = llama({.sharding = ShardingLevel::full, .shards = 16});
  CHECK(zero3.weights.value == 2 * ceil_div(P, 16) + 2 * (kTable + kTable));
  CHECK(zero3.gradients.value == 2 * ceil_div(P, 16));
  CHECK(zero3.optimizer_state.value == 12 * ceil_div(P, 16));
  // Sharding never touches the activations.
  CHECK(zero3.activations == none.activations);
  // 100.4 GiB of state alone does not fit 80 GB; sharded fully it is under 7 GiB.
  CHECK_FALSE(none.fits);
  CHECK(zero3.weights.value + zero3.gradients.value + zero3.optimizer_state.value < 7 * (std::int64_t{1} << 30));
}

TEST_CASE("tensor and context parallelism divide what they split") {
  // Megatron's tensor parallelism with sequence parallelism splits every saved activation.
  const MemoryReport one = llama({.framework = MemoryFramework::megatron}, 4);
  const MemoryReport tp8 = llama({.tensor = 8, .framework = MemoryFramework::megatron}, 4);
  CHECK(tp8.weights.value == 2 * ceil_div(P, 8));
  CHECK(tp8.optimizer_state.value == 12 * ceil_div(P, 8));
  CHECK(tp8.activations.value == 4 * ceil_div(one.activations.value / 4, 8));
  // PyTorch's ColwiseParallel keeps its all-gathered input whole: the QKV and gate inputs of the 32 blocks and the
  // LM head's, 65 x s x h x 2 bytes per sample, are not split.
  const ModelSpec model = find_model("llama-7b");
  const std::int64_t whole = 65 * model.transformer()->sequence * model.transformer()->hidden * 2;
  const MemoryReport pytorch_one = llama({}, 4);
  const MemoryReport pytorch_tp8 = llama({.tensor = 8}, 4);
  CHECK(pytorch_tp8.activations.value == 4 * (ceil_div(pytorch_one.activations.value / 4 - whole, 8) + whole));
  const MemoryReport cp2 = llama({.context = 2, .framework = MemoryFramework::megatron}, 4);
  CHECK(cp2.weights == one.weights);  // context parallelism replicates the weights
  CHECK(cp2.activations.value == 4 * ceil_div(one.activations.value / 4, 2));
}

TEST_CASE("1F1B keeps min(p - i, m) micro-batches in flight at stage i, GPipe all m") {
  CHECK(in_flight_passes(0, 4, 16, PipelineSchedule::one_f_one_b) == 4);
  CHECK(in_flight_passes(3, 4, 16, PipelineSchedule::one_f_one_b) == 1);
  CHECK(in_flight_passes(0, 4, 2, PipelineSchedule::one_f_one_b) == 2);
  CHECK(in_flight_passes(0, 4, 16, PipelineSchedule::gpipe) == 16);
  CHECK(in_flight_passes(0, 1, 16, PipelineSchedule::gpipe) == 1);  // no pipeline: one at a time

  // Four stages of LLaMA-7B's 32 decoder layers: each holds about a quarter of the weights, and the report is the
  // fullest stage, which keeps its in-flight micro-batches' activations.
  const MemoryReport whole = llama({}, 1);
  const MemoryReport pp4 = llama({.pipeline = 4, .micro_batches = 8}, 1);
  CHECK(pp4.weights.value < whole.weights.value / 3);
  CHECK(pp4.weights.value > whole.weights.value / 5);
  CHECK(pp4.in_flight == in_flight_passes(pp4.stage, 4, 8, PipelineSchedule::one_f_one_b));
  CHECK(pp4.activations.value > whole.activations.value / 4);  // the first stage keeps 4 micro-batches of a quarter
}

TEST_CASE("a layout the model cannot take is refused") {
  CHECK_THROWS_WITH(llama({.pipeline = 100000}), Catch::Contains("pipeline stages for a model of"));
  CHECK_THROWS_WITH(llama({.tensor = 0}), Catch::Contains("tensor size must be positive"));
  // An absurd batch clamps at 2^63 - 1 bytes: does not fit, never a wrapped number.
  const MemoryReport huge =
      llama({.pipeline = 1, .micro_batches = 1 << 20, .schedule = PipelineSchedule::gpipe}, std::int64_t{1} << 40);
  CHECK_FALSE(huge.fits);
  CHECK(huge.total.value > 0);
}

TEST_CASE("llama3-70b in bf16 with Adam: no GPU holds it whole, TP 8 x PP 4 does, full sharding over 64 at seq 2048") {
  // P = 70,553,706,496: 80 decoder layers of 855.6 M parameters plus the 128,256 x 8,192 embedding and LM head.
  constexpr std::int64_t P70 = 70'553'706'496;
  const GpuSpec h100 = find_gpu("H100-SXM-80GB");
  const ModelSpec llama70 = find_model("llama3-70b");
  const auto check = [&](const ModelSpec& m, const MemoryLayout& layout) {
    return memory_check(m, h100, 1, Precision::bf16, Optimizer::adam, layout);
  };
  // Replicated: 16 P = 1,128.9 GB of state alone, 14 times the GPU.
  const MemoryReport whole = check(llama70, {});
  CHECK(whole.weights.value + whole.gradients.value + whole.optimizer_state.value == 16 * P70);
  CHECK_FALSE(whole.fits);

  // TP 8 x PP 4: a stage holds about a quarter of the layers, split 8 ways, so about 16 P / 32 = 35.3 GB of state
  // (the first stage, with the embedding, a little more), and 12 bytes of optimizer state per 2 of weights.
  const MemoryReport tp8pp4 = check(llama70, {.tensor = 8, .pipeline = 4});
  CHECK(tp8pp4.optimizer_state.value == 6 * tp8pp4.weights.value);
  const double state =
      static_cast<double>(tp8pp4.weights.value + tp8pp4.gradients.value + tp8pp4.optimizer_state.value);
  CHECK(state == Approx(16.0 * static_cast<double>(P70) / 32).epsilon(0.1));
  CHECK(tp8pp4.fits);

  // Full sharding over 64: 16 x ceil(P / 64) plus the embedding and LM head gathered whole (2 x 2 x 1.05 G bytes).
  // Its activations are not split: at the catalog's 8,192 tokens they alone pass 80 GB (no checkpointing is
  // modelled yet); at 2,048 tokens the tensors fit, but not the reserve: the per-layer gathers fragment the cache
  // (GMLake's 15 % of what a step allocates and frees).
  constexpr std::int64_t kTable70 = 128'256LL * 8'192;
  const MemoryReport zero3 = check(llama70, {.sharding = ShardingLevel::full, .shards = 64});
  CHECK(zero3.weights.value == 2 * ceil_div(P70, 64) + 2 * (kTable70 + kTable70));
  CHECK(zero3.optimizer_state.value == 12 * ceil_div(P70, 64));
  CHECK_FALSE(zero3.fits);
  const MemoryReport short_seq =
      check(find_model("llama3-70b", {.sequence_length = 2048}), {.sharding = ShardingLevel::full, .shards = 64});
  CHECK(short_seq.allocated < short_seq.capacity);
  CHECK(short_seq.fragmentation.value > 0);
  CHECK_FALSE(short_seq.fits);
  CHECK(short_seq.activations.value * 4 == Approx(static_cast<double>(zero3.activations.value)).epsilon(0.01));
}

TEST_CASE("full checkpointing keeps each block's input: 2 s b h L / t bytes, plus one block while it recomputes") {
  const ModelSpec model = find_model("llama-7b");
  const TransformerStructure& t = *model.transformer();
  REQUIRE(t.blocks.size() == 32);
  // The layers outside the blocks (embedding, final norm, head, loss) keep their activations as before.
  std::int64_t outside = 0;
  std::int64_t block = 0;
  std::vector<bool> in_block(model.layers().size(), false);
  for (const auto& [first, last] : t.blocks) {
    for (std::size_t i = first; i < last; ++i) in_block[i] = true;
  }
  for (std::size_t i = 0; i < model.layers().size(); ++i) {
    const Layer& l = model.layers()[i];
    const std::int64_t bytes = 2 * l.saved_elements + l.saved_mask_bytes;
    if (!in_block[i]) outside += bytes;
  }
  // Megatron's layout (its fused SwiGLU keeps its input only), whose sequence parallelism splits every tensor.
  for (std::size_t i = t.blocks[0].first; i < t.blocks[0].second; ++i) {
    const Layer& l = model.layers()[i];
    block +=
        2 * (l.shape.fused_saved_elements >= 0 ? l.shape.fused_saved_elements : l.saved_elements) + l.saved_mask_bytes;
  }
  for (const std::int64_t tp : {1, 2, 8}) {
    const MemoryReport full = llama(
        {.tensor = tp, .checkpointing = ActivationCheckpointing::full, .framework = MemoryFramework::megatron}, 2);
    const std::int64_t inputs = 2 * t.sequence * t.hidden * 32;  // 2 s h L bytes per sample
    CHECK(full.activations.value == 2 * (ceil_div(inputs + outside, tp) + ceil_div(block, tp)));
    const MemoryReport none = llama({.tensor = tp, .framework = MemoryFramework::megatron}, 2);
    CHECK(full.activations < none.activations);
    CHECK(full.weights == none.weights);
  }
  // Under flash attention selective recomputation keeps what none keeps; without blocks nothing can be checkpointed.
  CHECK(llama({.checkpointing = ActivationCheckpointing::selective}).activations == llama({}).activations);
  CHECK_THROWS_WITH(memory_check(find_model("resnet50"), find_gpu("H100-SXM-80GB"), 8, Precision::bf16, Optimizer::adam,
                                 {.checkpointing = ActivationCheckpointing::full}),
                    Catch::Contains("no transformer blocks"));
  CHECK_THROWS_WITH(
      memory_check(find_model("gpt2", {.attention = AttentionKernel::eager}), find_gpu("H100-SXM-80GB"), 8,
                   Precision::bf16, Optimizer::adam, {.checkpointing = ActivationCheckpointing::selective}),
      Catch::Contains("selective recomputation of eager attention"));
}

TEST_CASE("selective_op keeps each block's input, every other matmul's output and the attention kernel's") {
  // Llama 3 8B (h 4096, 8 key/value heads of 128: kv 1024, SwiGLU f 14336, 32 heads, s 8192), torchtitan's rule:
  // a block's matmuls in order q, k, v, o, gate, up, down; the 1st, 3rd, 5th and 7th (q, v, gate, down) and flash
  // attention keep their outputs, plus the softmax statistics (8 bytes per head and token), the rest is recomputed.
  // Against full checkpointing (input only, the same one block recomputing at the peak) each block keeps per token
  // (h + kv + f + h + h) x 2 bytes + 32 x 8 bytes.
  const ModelSpec llama = find_model("llama3-8b");
  const auto check = [&](ActivationCheckpointing c) {
    return memory_check(llama, find_gpu("H100-SXM-80GB"), 1, Precision::bf16, Optimizer::adam, {.checkpointing = c});
  };
  const std::int64_t per_token = (4096 + 1024 + 14336 + 4096 + 4096) * 2 + 32 * 8;
  const MemoryReport op = check(ActivationCheckpointing::selective_op);
  const MemoryReport full = check(ActivationCheckpointing::full);
  CHECK(op.activations.value - full.activations.value == 32 * 8192 * per_token);
  CHECK(op.activations < check(ActivationCheckpointing::none).activations);
  CHECK(op.weights == full.weights);
  // Which layers run again: in block 0, k, o and up among the matmuls, the norms, rotary, SiLU and the adds.
  const std::vector<bool> again = recomputed_layers(llama, ActivationCheckpointing::selective_op);
  std::vector<std::string> kept;
  const auto [first, last] = llama.transformer()->blocks.front();
  for (std::size_t i = first; i < last; ++i) {
    if (!again[i]) kept.push_back(llama.layers()[i].name);
  }
  CHECK(kept == std::vector<std::string>{"layers.0.self_attn.q_proj", "layers.0.self_attn.v_proj",
                                         "layers.0.self_attn.flash_attention", "layers.0.mlp.gate_proj",
                                         "layers.0.mlp.down_proj"});
  CHECK_FALSE(again[0]);  // the token table is outside every block
  // Eager attention has no attention kernel whose output torchtitan saves.
  CHECK_THROWS_WITH(
      memory_check(find_model("llama3-8b", {.attention = AttentionKernel::eager}), find_gpu("H100-SXM-80GB"), 1,
                   Precision::bf16, Optimizer::adam, {.checkpointing = ActivationCheckpointing::selective_op}),
      Catch::Contains("selective_op keeps the attention kernel's output"));
}

TEST_CASE("interleaving keeps more in flight on the first stage: p (1 + (p - 1)/(p v)) micro-batches' worth") {
  // System: 8 transformer blocks of one layer each, every layer keeping 10 elements (20 bytes in bf16) per sample,
  // no weights; p 4 stages. 1F1B: stage 0 holds blocks 0-1 (40 bytes a micro-batch) for min(4, m) micro-batches.
  // Interleaved, v 2: stage 0 holds chunks 0 and 4 (20 bytes each); Megatron's warm-up is 2 (p - 1) + (v - 1) p =
  // 10 forward passes, one more before the first backward: 11, in the order chunk 0 for micro-batches 0-3, chunk 1
  // for 0-3, chunk 0 for 4-7: 7 passes of chunk 0 and 4 of chunk 1.
  std::vector<Layer> layers;
  TransformerStructure t;
  t.hidden = t.sequence = t.kv_width = 1;
  for (int b = 0; b < 8; ++b) {
    layers.push_back({.name = fmt::format("block{}", b), .forward_flops = 100, .saved_elements = 10});
    t.blocks.emplace_back(b, b + 1);
  }
  const ModelSpec model("blocks", layers, t);
  const auto check = [&](PipelineSchedule schedule, std::int64_t v, std::int64_t m) {
    return memory_check(model, find_gpu("H100-SXM-80GB"), 1, Precision::bf16, Optimizer::adam,
                        {.pipeline = 4, .micro_batches = m, .schedule = schedule, .virtual_stages = v});
  };
  const MemoryReport one_f_one_b = check(PipelineSchedule::one_f_one_b, 1, 8);
  const MemoryReport interleaved = check(PipelineSchedule::interleaved, 2, 8);
  CHECK(one_f_one_b.stage == 0);
  CHECK(one_f_one_b.in_flight == 4);
  CHECK(one_f_one_b.activations.value == 4 * 40);
  CHECK(interleaved.stage == 0);
  CHECK(interleaved.in_flight == 11);
  CHECK(interleaved.activations.value == 7 * 20 + 4 * 20);
  // Korthikanti et al.'s factor for the first stage: 1 + (p - 1)/(p v) = 1.375.
  CHECK(static_cast<double>(interleaved.activations.value) / static_cast<double>(one_f_one_b.activations.value) ==
        Approx(1 + 3.0 / 8));
  // The last stage: 4 warm-up passes and one more, 4 of chunk 3 and 1 of chunk 7.
  CHECK(in_flight_passes(3, 4, 8, PipelineSchedule::interleaved, 2) == 5);
  // Two micro-batches: the warm-up is capped at m v = 4 passes, all of chunk 0: as much as 1F1B keeps.
  CHECK(check(PipelineSchedule::interleaved, 2, 2).activations ==
        check(PipelineSchedule::one_f_one_b, 1, 2).activations);
}
