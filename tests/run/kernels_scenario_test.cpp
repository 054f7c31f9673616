// model.kernels, model.compile_loss, model.cross_entropy_loss_fusion and cluster.gpu.power_limit end to end: the keys
// turn on the kernel model (compute_model.hpp), write back and read back the same, and refuse what they cannot mean at
// their key.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "syncsim/compute/compute_model.hpp"
#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/compute/kernel_model.hpp"
#include "syncsim/compute/memory_check.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

std::string kernels_yaml(const std::string& gpu, const std::string& model_extra = "") {
  return "name: kernels\n"
         "cluster: {gpu: " +
         gpu +
         ", topology: \"switch:n=2,bw=400Gbps,lat=5us\"}\n"
         "model: {name: llama3-8b, batch_per_gpu: 1, precision: bf16" +
         model_extra +
         "}\n"
         "training: {strategy: sync, iterations: 1}\n";
}

double single_gpu(const std::string& text) {
  return run::run_scenario(parse_scenario(text, "k.yaml")).report.single_gpu_samples_per_second;
}

}  // namespace

TEST_CASE("model.kernels turns on kernels by shape, and eager runs slower than compiled, compiled than fused",
          "[kernels]") {
  const double constant = single_gpu(kernels_yaml("H100-SXM-80GB"));
  const double fused = single_gpu(kernels_yaml("H100-SXM-80GB", ", kernels: fused"));
  const double eager = single_gpu(kernels_yaml("H100-SXM-80GB", ", kernels: eager"));
  // Compiled blocks fuse what eager runs op by op, but keep PyTorch's attention kernel, slower than cuDNN's.
  const double compiled = single_gpu(kernels_yaml("H100-SXM-80GB", ", kernels: compiled"));
  CHECK(fused != constant);
  CHECK(eager < compiled);
  CHECK(compiled < fused);
  // An efficiency fixes the constant roofline whatever the kernels say; what they say of the framework's code stays
  // (Megatron's fused projections and loss, or PyTorch's modules and loss).
  CHECK(single_gpu(kernels_yaml("H100-SXM-80GB", ", kernels: fused, efficiency: 0.7")) == constant);
  CHECK(single_gpu(kernels_yaml("H100-SXM-80GB", ", kernels: eager, efficiency: 0.7")) != constant);
}

TEST_CASE("the report says what the kernel model ran at, and only when it ran", "[kernels]") {
  const auto report = [](const std::string& text) {
    return run::run_scenario(parse_scenario(text, "k.yaml")).report.kernel_model;
  };
  const auto capped = report(kernels_yaml("{name: H100-SXM-80GB, power_limit: 500W}", ", kernels: eager"));
  REQUIRE(capped);
  CHECK(capped->style == "eager");
  const GpuSpec h100 = find_gpu("H100-SXM-80GB");
  const KernelModel eager(h100, KernelStyle::eager);
  CHECK(*capped->gemm_core == *eager.core());
  CHECK(*capped->attention == Approx(*eager.attention(128, 16384, false)));
  CHECK(capped->streaming_fraction == kStreamingFraction);
  CHECK(capped->sustained == *h100.sustained_matmul);
  CHECK(capped->sustained_source == "published");
  CHECK(capped->clock_factor == Approx(std::cbrt(500.0 / 700)));
  // A GPU with no SM count or best GEMM runs its GEMMs on the constant roofline, and says so.
  const auto l40s = report(kernels_yaml("L40S", ", kernels: fused"));
  REQUIRE(l40s);
  CHECK_FALSE(l40s->gemm_core);
  CHECK(l40s->sustained_source == "none");
  CHECK(l40s->clock_factor == 1);
  // Without model.kernels, or with an efficiency that fixes the roofline, no kernel model ran.
  CHECK_FALSE(report(kernels_yaml("H100-SXM-80GB")));
  CHECK_FALSE(report(kernels_yaml("H100-SXM-80GB", ", kernels: eager, efficiency: 0.7")));
}

TEST_CASE("a power limit slows the run and reads back", "[kernels]") {
  const std::string capped = kernels_yaml("{name: H100-SXM-80GB, power_limit: 500W}", ", kernels: fused");
  CHECK(single_gpu(capped) < single_gpu(kernels_yaml("H100-SXM-80GB", ", kernels: fused")));
  const Scenario s = parse_scenario(capped, "k.yaml");
  REQUIRE(s.cluster.gpu.power_limit);
  CHECK(s.cluster.gpu.power_limit->value == 500);
  const Scenario again = parse_scenario(to_yaml(s), "again.yaml");
  REQUIRE(again.cluster.gpu.power_limit);
  CHECK(again.cluster.gpu.power_limit->value == 500);
  REQUIRE(again.model.kernels);
  CHECK(again.model.kernels->value == KernelStyle::fused);
  const Scenario compiled = parse_scenario(kernels_yaml("H100-SXM-80GB", ", kernels: compiled"), "c.yaml");
  const Scenario compiled_again = parse_scenario(to_yaml(compiled), "again.yaml");
  REQUIRE(compiled_again.model.kernels);
  CHECK(compiled_again.model.kernels->value == KernelStyle::compiled);
}

TEST_CASE("model.compile_loss fuses the loss, keeps its 16-bit logits, and reads back", "[kernels]") {
  // Llama 3 8B at 8,192 tokens (its catalog sequence), batch 1: 8,192 x 128,256 logits. Eager keeps their FP32
  // log-softmax (4 B a logit) and its backward holds two more FP32 tensors (8 B); compiled, the loss keeps the
  // 16-bit logits (2 B) and writes the 16-bit gradient (2 B): 12 - 4 = 8 B a logit less at the loss's peak.
  const std::string eager_text = kernels_yaml("H100-SXM-80GB", ", kernels: compiled");
  const std::string compiled_text = kernels_yaml("H100-SXM-80GB", ", kernels: compiled, compile_loss: true");
  CHECK(single_gpu(compiled_text) > single_gpu(eager_text));
  const MemoryReport eager = run::scenario_memory(parse_scenario(eager_text, "k.yaml"));
  const MemoryReport compiled = run::scenario_memory(parse_scenario(compiled_text, "k.yaml"));
  const std::int64_t logits = 8'192LL * 128'256;
  CHECK(eager.activations.value - compiled.activations.value == 2 * logits);
  CHECK(eager.loss_buffers.value + eager.activations.value - compiled.loss_buffers.value - compiled.activations.value ==
        8 * logits);
  const Scenario again = parse_scenario(to_yaml(parse_scenario(compiled_text, "k.yaml")), "again.yaml");
  CHECK(again.model.compile_loss.value);
}

TEST_CASE("model.cross_entropy_loss_fusion runs Megatron's fused loss, and reads back", "[kernels]") {
  // Megatron's unfused cross entropy moves 52 bytes a logit, its fused one 28 (megatron_loss_test): a faster step.
  const std::string unfused_text = kernels_yaml("H100-SXM-80GB");
  const std::string fused_text = kernels_yaml("H100-SXM-80GB", ", cross_entropy_loss_fusion: true");
  CHECK(single_gpu(fused_text) > single_gpu(unfused_text));
  CHECK(single_gpu(kernels_yaml("H100-SXM-80GB", ", kernels: fused, cross_entropy_loss_fusion: true")) >
        single_gpu(kernels_yaml("H100-SXM-80GB", ", kernels: fused")));
  const Scenario again = parse_scenario(to_yaml(parse_scenario(fused_text, "k.yaml")), "again.yaml");
  CHECK(again.model.cross_entropy_loss_fusion.value);
  CHECK_FALSE(parse_scenario(to_yaml(parse_scenario(unfused_text, "k.yaml")), "again.yaml")
                  .model.cross_entropy_loss_fusion.value);
  // Off is what PyTorch's runs have anyway.
  CHECK_NOTHROW(
      parse_scenario(kernels_yaml("H100-SXM-80GB", ", kernels: eager, cross_entropy_loss_fusion: false"), "k.yaml"));
}

TEST_CASE("bad kernels and power limits fail at their key", "[kernels]") {
  CHECK_THROWS_WITH(parse_scenario(kernels_yaml("H100-SXM-80GB", ", kernels: inductor"), "bad.yaml"),
                    Catch::Contains("model.kernels") && Catch::Contains("compiled"));
  CHECK_THROWS_WITH(parse_scenario(kernels_yaml("H100-SXM-80GB", ", kernels: fused, compile_loss: true"), "bad.yaml"),
                    Catch::Contains("model.compile_loss") && Catch::Contains("eager or compiled"));
  CHECK_THROWS_WITH(parse_scenario(kernels_yaml("H100-SXM-80GB", ", compile_loss: true"), "bad.yaml"),
                    Catch::Contains("model.compile_loss"));
  CHECK_THROWS_WITH(parse_scenario(kernels_yaml("H100-SXM-80GB", ", kernels: eager, compile_loss: maybe"), "b.yaml"),
                    Catch::Contains("model.compile_loss"));
  CHECK_THROWS_WITH(
      parse_scenario(kernels_yaml("H100-SXM-80GB", ", kernels: compiled, cross_entropy_loss_fusion: true"), "b.yaml"),
      Catch::Contains("b.yaml:3:") && Catch::Contains("model.cross_entropy_loss_fusion") &&
          Catch::Contains("Megatron"));
  CHECK_THROWS_WITH(parse_scenario(kernels_yaml("H100-SXM-80GB", ", cross_entropy_loss_fusion: 2"), "bad.yaml"),
                    Catch::Contains("model.cross_entropy_loss_fusion"));
  CHECK_THROWS_WITH(parse_scenario(kernels_yaml("{name: H100-SXM-80GB, power_limit: lots}"), "bad.yaml"),
                    Catch::Contains("cluster.gpu.power_limit"));
  CHECK_THROWS_WITH(parse_scenario(kernels_yaml("{name: H100-SXM-80GB, power_limit: -5W}"), "bad.yaml"),
                    Catch::Contains("cluster.gpu.power_limit"));
  CHECK_THROWS_WITH(
      parse_scenario(kernels_yaml("{name: H100-SXM-80GB, power_limit: 500W, peak_tflops: {fp32: 1}}"), "bad.yaml"),
      Catch::Contains("cluster.gpu.peak_tflops"));
  // Above the board power: refused where the GPU is resolved, at the key, naming the board's 700 W.
  const Scenario over = parse_scenario(kernels_yaml("{name: H100-SXM-80GB, power_limit: 900W}"), "over.yaml");
  CHECK_THROWS_WITH(run::run_scenario(over), Catch::Contains("cluster.gpu.power_limit") && Catch::Contains("700"));
}
