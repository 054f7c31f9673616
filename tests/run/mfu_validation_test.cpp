// Predicted FLOP utilisation against published large-scale runs (validation/scenarios/mfu, docs/accuracy.md):
// Megatron-LM's GPT runs on A100 (hardware FLOPs, recomputation counted) and Llama 3 405B on 16K H100s (model
// FLOPs). Each prediction must stay within the largest error measured when the table in docs/accuracy.md was made
// (7.4 points), so that a change that moves them is seen and the table redone.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {
const std::filesystem::path kMfuScenarios = SYNCSIM_MFU_SCENARIOS;
// Llama 3 405B on 16,384 H100s: -6.6 points since Megatron's layouts reduce their gradients from the FP32 buffer
// (grad_reduce_in_fp32, the paper's FP32 reduce-scatters; -2.8 when they moved BF16). Megatron's 145.6B GPT, +2.7,
// was the largest before that, and before the SC'21 runs were laid out without sequence parallelism (+4.9; +6.4
// before the slowest chip's pace, +7.4 before the sequence-parallel backward's all-gathers were counted).
constexpr double kLargestMfuError = 0.067;

LayoutReport layout_of(const std::string& file) {
  const TrainingReport r = run::run_scenario(load_scenario(kMfuScenarios / file)).report;
  REQUIRE(r.layout);
  return *r.layout;
}
}  // namespace

TEST_CASE("Megatron-LM's GPT runs on A100: hardware FLOP utilisation near the published 47-52%") {
  for (const auto& [file, published] :
       {std::pair{"megatron-gpt-145b.yaml", 0.47}, std::pair{"megatron-gpt-530b.yaml", 0.52},
        std::pair{"megatron-gpt-1t.yaml", 0.52}}) {
    const LayoutReport l = layout_of(file);
    INFO(file << ": predicted " << l.hardware_flops_utilization << ", published " << published);
    CHECK(std::abs(l.hardware_flops_utilization - published) <= kLargestMfuError);
    CHECK(l.model_flops_utilization == Approx(l.hardware_flops_utilization * 3 / 4).epsilon(0.01));
  }
}

TEST_CASE("Megatron-LM's GPT blocks from the decoder's parts have the SC'21 table's parameters") {
  // Narayanan et al., SC'21, table 1: 145.6, 529.6 and 1,008.0 billion (GELU 4h, learned positions, biases, tied).
  for (const auto& [file, billions] :
       {std::pair{"megatron-gpt-145b.yaml", 145.6}, std::pair{"megatron-gpt-530b.yaml", 529.6},
        std::pair{"megatron-gpt-1t.yaml", 1008.0}}) {
    INFO(file);
    const Scenario s = load_scenario(kMfuScenarios / file);
    CHECK(static_cast<double>(llama("gpt", s.model.transformer->value).params()) / 1e9 ==
          Approx(billions).margin(0.05));
  }
}

TEST_CASE("Llama 3 405B on 16,384 H100s: model FLOP utilisation near the published 41%") {
  const LayoutReport l = layout_of("llama3-405b-16k.yaml");
  CHECK(l.data == 128);
  CHECK(std::abs(l.model_flops_utilization - 0.41) <= kLargestMfuError);
}
