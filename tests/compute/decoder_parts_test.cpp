// The decoder generator's parts beyond LLaMA's (model.transformer's mlp, norm, positions, bias, dropout): Megatron's
// GPT-3 block equals the GPT-2 generator's GPT-3 layer for layer in what it counts, and Nemotron-4 340B has its
// report's parameters.
#include <catch2/catch.hpp>

#include <string>

#include "syncsim/compute/compute_model.hpp"
#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/compute/model_catalog.hpp"

using namespace syncsim;

namespace {
std::int64_t saved_bytes16(const ModelSpec& m, const std::string& prefix) {
  std::int64_t bytes = 0;
  for (const Layer& l : m.layers()) {
    if (l.name.rfind(prefix, 0) == 0) bytes += 2 * l.saved_elements + l.saved_mask_bytes;
  }
  return bytes;
}

std::int64_t layers_named(const ModelSpec& m, const std::string& part) {
  std::int64_t n = 0;
  for (const Layer& l : m.layers()) n += l.name.find(part) != std::string::npos ? 1 : 0;
  return n;
}

const LlamaShape kGpt3{.layers = 96,
                       .hidden = 12'288,
                       .heads = 96,
                       .ffn = 4 * 12'288,
                       .vocab = 50'257,
                       .sequence_length = 2048,
                       .tied_embeddings = true,
                       .mlp = MlpActivation::gelu,
                       .norm = DecoderNorm::layernorm,
                       .positions = PositionEncoding::learned,
                       .bias = true,
                       .dropout = true};
}  // namespace

TEST_CASE("Megatron's GPT-3 block from the decoder's parts counts what GPT-2's generator counts", "[decoder_parts]") {
  const ModelSpec parts = llama("gpt3", kGpt3);
  const ModelSpec catalog = find_model("gpt3-175b");
  CHECK(parts.params() == 174'604'259'328);
  CHECK(parts.params() == catalog.params());
  CHECK(parts.forward_flops() == catalog.forward_flops());
  // Korthikanti et al.'s s·h·(34 + 5as/h) bytes a layer with eager attention, dropout masks included.
  LlamaShape eager = kGpt3;
  eager.attention = AttentionKernel::eager;
  const std::int64_t s = 2048, h = 12'288, a = 96;
  CHECK(saved_bytes16(llama("gpt3", eager), "layers.7.") == s * h * 34 + 5 * a * s * s);
  CHECK(layers_named(parts, "rotary") == 0);
  CHECK(layers_named(parts, "embed_positions") == 1);
}

TEST_CASE("an ungated MLP is two products of ffn, its activation one kernel", "[decoder_parts]") {
  LlamaShape shape{.layers = 2, .hidden = 256, .heads = 4, .ffn = 1024, .vocab = 1000, .sequence_length = 128};
  const ModelSpec swiglu = llama("s", shape);
  shape.mlp = MlpActivation::squared_relu;
  const ModelSpec relu2 = llama("r", shape);
  // Per layer SwiGLU has gate, up and down (3·h·ffn), relu² up and down (2·h·ffn).
  CHECK(swiglu.params() - relu2.params() == 2 * 256 * 1024);
  CHECK(layers_named(relu2, "squared_relu") == 2);
  CHECK(layers_named(relu2, "gate_proj") == 0);
  // A bias on every projection: q, k, v, o (4h) and up, down (ffn + h) a layer.
  // Megatron runs it as PyTorch writes it, torch.pow(relu(x), 2), its activation fusion covering GELU and SwiGLU
  // only: under fused kernels eager's two kernels and twice the bytes; a compiled block fuses it.
  const Layer* activation = nullptr;
  for (const Layer& l : relu2.layers()) {
    if (l.name.find("squared_relu") != std::string::npos) activation = &l;
  }
  REQUIRE(activation);
  const GpuSpec h100 = find_gpu("H100-SXM-80GB");
  const ComputeModel fused(h100, Precision::bf16, {.kernels = KernelStyle::fused});
  const ComputeModel eager(h100, Precision::bf16, {.kernels = KernelStyle::eager});
  const ComputeModel compiled(h100, Precision::bf16, {.kernels = KernelStyle::compiled});
  CHECK(fused.forward(*activation, 1) == eager.forward(*activation, 1));
  const double bytes = 2.0 * 128 * 1024 * 2;
  const double stream = h100.memory_bandwidth.bytes_per_second * kStreamingFraction;
  CHECK(compiled.forward(*activation, 1).seconds() == Approx(bytes / stream + 5e-6).epsilon(1e-6));
  CHECK(fused.forward(*activation, 1).seconds() == Approx(2 * bytes / stream + 2 * 5e-6).epsilon(1e-6));
  LlamaShape biased = shape;
  biased.bias = true;
  CHECK(llama("b", biased).params() - relu2.params() == 2 * (4 * 256 + 1024 + 256));
  // LayerNorm has a scale and a shift where RMSNorm has a scale: 2 norms a layer and the final one.
  LlamaShape layernorm = shape;
  layernorm.norm = DecoderNorm::layernorm;
  CHECK(llama("n", layernorm).params() - relu2.params() == (2 * 2 + 1) * 256);
}

TEST_CASE("Nemotron-4 340B has the report's 9.4 B embedding and 331.6 B other parameters", "[decoder_parts]") {
  // NVIDIA, "Nemotron-4 340B Technical Report" (2024), table 1: 96 layers of 18,432, 96 heads in 8 query groups,
  // squared-ReLU MLP of 73,728, 256,000 tokens, untied.
  const ModelSpec m = llama("nemotron-4-340b", {.layers = 96,
                                                .hidden = 18'432,
                                                .heads = 96,
                                                .kv_heads = 8,
                                                .ffn = 73'728,
                                                .vocab = 256'000,
                                                .sequence_length = 4096,
                                                .mlp = MlpActivation::squared_relu,
                                                .norm = DecoderNorm::layernorm});
  const std::int64_t embeddings = 2LL * 256'000 * 18'432;
  CHECK(embeddings == 9'437'184'000);
  CHECK(m.params() - embeddings == 331'592'011'776);
}
