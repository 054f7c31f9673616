// Memory as the allocator reports it, against published LLM runs (validation/scenarios/llm/published-memory.csv;
// docs/accuracy.md, "LLM training on DGX H100", the memory rows): torchtitan's Llama 3.1 FSDP tables publish the
// peak reserved memory (torch.cuda.max_memory_reserved), which the memory check predicts within 10 %.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "published_csv.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {
const std::filesystem::path kMemoryScenarios = SYNCSIM_LLM_SCENARIOS;
const std::filesystem::path kMemoryMfuScenarios = SYNCSIM_MFU_SCENARIOS;
constexpr double kBound = 0.10;
constexpr double kGiB = 1024.0 * 1024 * 1024;

struct MemoryRow {
  std::string scenario;
  double reserved_gib = 0;
};

std::vector<MemoryRow> published_memory() {
  std::vector<MemoryRow> rows;
  for (const auto& cells : test::published_csv(kMemoryScenarios / "published-memory.csv", 3)) {
    rows.push_back({cells[0], std::stod(cells[1])});
  }
  return rows;
}
}  // namespace

TEST_CASE("torchtitan's Llama 3.1 FSDP runs, 8B and 70B beside TP: reserved memory within 10 % of published",
          "[llm_memory]") {
  const std::vector<MemoryRow> rows = published_memory();
  REQUIRE(rows.size() == 14);
  for (const MemoryRow& row : rows) {
    const MemoryReport m = run::scenario_memory(load_scenario(kMemoryScenarios / row.scenario));
    const double reserved = static_cast<double>(m.reserved.value) / kGiB;
    INFO(row.scenario << ": reserved " << reserved << " GiB against " << row.reserved_gib << " GiB published");
    CHECK(std::abs(reserved / row.reserved_gib - 1) <= kBound);
    CHECK(m.framework == MemoryFramework::pytorch);
    CHECK(m.fragmentation.value > 0);  // recomputation and FSDP's per-layer gathers fragment the cache
    CHECK(m.allocated < m.reserved);
    CHECK(m.fits);  // the runs fit their 96 GB H100s
  }
}

TEST_CASE("Llama 3 405B as Meta laid it out: the fullest stage's terms, and it fits in 80 GB", "[llm_memory]") {
  // TP 8 x PP 16, DP 128, 16 micro-batches of 8,192 tokens, interleaved over v = 2 chunks, Meta's FSDP (ZeRO-2:
  // optimizer state and gradients sharded over data), with the paper's balanced split as Megatron's accounted one
  // (docs/compute.md, "Balanced pipeline splits"): stage 0 holds the embedding and 3 + 4 blocks, stages 1-14 4 + 4,
  // stage 15 4 + 3 and the head.
  const Scenario s = load_scenario(kMemoryMfuScenarios / "llama3-405b-16k.yaml");
  const MemoryReport m = run::scenario_memory(s);
  CHECK(m.framework == MemoryFramework::megatron);
  // Stage 1's warm-up, 2 (p - 2) + (v - 1) p = 44, is past m v = 32 as stage 0's is: both keep every chunk pass in
  // flight, and stage 1's are of 8 blocks, stage 0's of 7. Stages 2-7 tie with stage 1; the first is reported.
  CHECK(m.stage == 1);
  CHECK(m.in_flight == 32);
  // 16 micro-batches x 8 blocks, each keeping 8,192 / 8 = 1,024 tokens x (12h + 4h_kv + 6f) = 520,192 B a token
  // (Megatron's fused bias-SwiGLU keeps its input, gate and up, 4f bytes, and the down projection's input 2f; eager
  // PyTorch's product would also keep silu(gate), 2f more), plus flash attention's FP32 row statistics, 8 x 128 heads
  // x 8,192 / 8 = 1,048,576 B.
  CHECK(m.activations.value == 128 * (1'024LL * 520'192 + 1'048'576));
  // 8 blocks of 2h^2 + 2 h h_kv + 3hf + 2h = 3,187,703,808 parameters, split 8 ways: bf16 weights, kept whole (FSDP
  // does not reshard them after forward); the FP32 gradients and the 12 optimizer bytes sharded over the 128
  // data-parallel ranks.
  CHECK(m.weights.value == 2 * 3'187'703'808LL);
  CHECK(m.gradients.value == 4 * (3'187'703'808LL / 128));
  CHECK(static_cast<double>(m.optimizer_state.value) ==
        Approx(12.0 * static_cast<double>(m.weights.value / 2) / 128).epsilon(1e-5));
  // The logits are the last stage's: no loss buffers here. Nothing is recomputed: reserved is allocated.
  CHECK(m.loss_buffers.value == 0);
  CHECK(m.reserved == m.allocated);
  CHECK(m.communicators == 3);  // tensor, pipeline, data
  CHECK(m.fits);
  CHECK(static_cast<double>(m.total.value) / (1LL << 30) == Approx(71.66).margin(0.01));
  // Megatron's distributed optimizer (ZeRO-1) keeps the whole FP32 main-grad buffer, 4 B a parameter: 11.8 GiB
  // more, and the same layout does not fit.
  Scenario zero1 = s;
  zero1.parallelism.sharding.value = ShardingLevel::optimizer;
  const MemoryReport megatron = run::scenario_memory(zero1);
  CHECK(megatron.gradients.value == 4 * 3'187'703'808LL);
  CHECK(megatron.total - m.total == megatron.gradients - m.gradients);
  CHECK_FALSE(megatron.fits);
}
