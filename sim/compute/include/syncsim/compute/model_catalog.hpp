#pragma once
// The built-in model catalog. Layer lists are generated from the architectures (cnn_builder, transformer_builder
// in src/compute), not typed in; the tests hold the parameter counts to the published ones exactly (GPT-3's and
// DeepSeekMoE's papers give only rounded totals; the exact counts are worked out in model_catalog_test.cpp):
//
//   name        architecture                                          params         forward FLOPs / sample
//   resnet50    torchvision ResNet-50 v1.5, 224x224                   25,557,032     8.25 G (published 4.09 GMAC)
//   resnet101   torchvision ResNet-101 v1.5, 224x224                  44,549,160     15.7 G (published 7.80 GMAC)
//   resnet152   torchvision ResNet-152 v1.5, 224x224                  60,192,808     23.2 G (published 11.5 GMAC)
//   resnext50   torchvision ResNeXt-50 32x4d, 224x224                 25,028,904     8.55 G (published 4.23 GMAC)
//   resnext101  torchvision ResNeXt-101 32x8d, 224x224                88,791,336     33.0 G (published 16.4 GMAC)
//   inception3  torchvision Inception v3 with its auxiliary head, 299  27,161,264     11.5 G (published 5.71 GMAC)
//   vgg16       torchvision VGG-16 (no batch norm), 224x224          138,357,544     31.0 G (published 15.47 GMAC)
//   bert-large  HF BertModel 24 x 1024, 16 heads, seq 512, pooler    335,141,888     336 G  (Megatron form: 335 G)
//   gpt2        HF GPT-2 small 12 x 768, seq 1024, tied LM head      124,439,808     293 G  (Megatron form: 292 G)
//   gpt3-175b   GPT-3 96 x 12288, 96 heads, seq 2048, tied        174,604,259,328   735 T  (paper: 175.0 B params)
//   llama-7b    LLaMA-7B 32 x 4096, SwiGLU 11008, seq 2048, untied  6,738,415,616    29.3 T (Megatron form: 29.3 T)
//   llama3-8b   Llama 3 32 x 4096, GQA 8 kv heads, seq 8192         8,030,261,248    159 T  (Megatron form: 158 T)
//   llama3-70b  Llama 3 80 x 8192, GQA 8 kv heads, seq 8192        70,553,706,496   1.32 P
//   llama3-405b Llama 3.1 126 x 16384, GQA 8 kv heads, seq 8192   405,853,388,800   7.18 P
//   mixtral-8x7b  32 x 4096, 8 experts top-2, GQA 8, seq 32768     46,702,792,704   1.40 P (2 experts' FLOPs)
//   deepseek-moe-16b  28 x 2048, 64 experts top-6 + 2 shared,      16,375,728,128   25.4 T (paper: 16.4 B params)
//               layer 0 dense, seq 4096
//
// Transformers run flash attention (one fused kernel, no s x s matrix kept) unless ModelOptions says eager.
//
//   ModelSpec m = find_model("ResNet-50");
//   ModelSpec short_bert = find_model("bert-large", {.sequence_length = 128});
//   ModelSpec eager_gpt2 = find_model("gpt2", {.attention = AttentionKernel::eager});
//   ModelSpec moe = llama("my-moe", {.layers = 16, .hidden = 2048, .heads = 16, .kv_heads = 4, .ffn = 4096,
//                                    .experts = 8, .experts_per_token = 2});
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/compute/model_spec.hpp"

namespace syncsim {

// How a transformer's attention runs (transformer_builder.hpp). flash: one fused kernel keeping only the softmax
// statistics for backward (FlashAttention; PyTorch's scaled_dot_product_attention), the default; eager: scores,
// softmax and context as three kernels with the a·s² probabilities in memory (HF's "eager" implementation).
enum class AttentionKernel { flash, eager };

// Shape overrides for catalog models; a field a model has no use for is an error.
struct ModelOptions {
  std::optional<std::int64_t> sequence_length = std::nullopt;  // transformers: tokens per sample
  std::optional<std::int64_t> image_size = std::nullopt;       // CNNs: square input side in pixels
  std::optional<AttentionKernel> attention = std::nullopt;     // transformers: flash unless told
};

// Canonical catalog names in a fixed order.
std::vector<std::string_view> model_names();
// By canonical name or alias ("ResNet-50", "bert_large", "gpt-2", "7b"), ignoring case, '-', '_' and spaces.
// Throws InputError listing the names for an unknown one, and for options the model does not take or cannot use.
ModelSpec find_model(std::string_view name, const ModelOptions& options = {});

// The generators behind the catalog, for shapes the catalog does not list.

// Bottleneck ResNet v1.5 (stride on the 3x3 conv) with `blocks` bottlenecks per stage: {3,4,6,3} is ResNet-50,
// {3,4,23,3} ResNet-101, {3,8,36,3} ResNet-152. ResNeXt: the 3x3 conv in `groups` groups of `width_per_group`
// channels per 64 of the stage's width (32 and 4: ResNeXt-50 32x4d; 32 and 8: ResNeXt-101 32x8d).
struct ResNetWidth {
  std::int64_t groups = 1;
  std::int64_t width_per_group = 64;
};
ModelSpec resnet(std::string name, const std::vector<std::int64_t>& blocks, std::int64_t image_size = 224,
                 std::int64_t classes = 1000, ResNetWidth width = {});
// torchvision's Inception v3 in training mode, auxiliary classifier included (it runs, and trains, with the main
// head); at least 75 pixels.
ModelSpec inception_v3(std::int64_t image_size = 299, std::int64_t classes = 1000);
ModelSpec vgg16(std::int64_t image_size = 224, std::int64_t classes = 1000);

struct BertShape {
  std::int64_t layers = 24;
  std::int64_t hidden = 1024;
  std::int64_t heads = 16;
  std::int64_t ffn = 4096;
  std::int64_t vocab = 30522;
  std::int64_t max_positions = 512;
  std::int64_t token_types = 2;
  std::int64_t sequence_length = 512;
  AttentionKernel attention = AttentionKernel::flash;
};
// Post-LN encoder with embeddings and the [CLS] pooler (HF BertModel), without the pre-training heads.
ModelSpec bert(std::string name, const BertShape& shape);

struct GptShape {
  std::int64_t layers = 12;
  std::int64_t hidden = 768;
  std::int64_t heads = 12;
  std::int64_t vocab = 50257;
  std::int64_t max_positions = 1024;
  std::int64_t sequence_length = 1024;
  AttentionKernel attention = AttentionKernel::flash;
};
// Pre-LN GPT-2 decoder; the LM head reuses the token embedding (tied), then softmax cross-entropy.
ModelSpec gpt2(std::string name, const GptShape& shape);

// A pre-norm decoder's parts that differ between families; the defaults are LLaMA's.
enum class MlpActivation {
  swiglu,       // gate and up projections, silu(gate) x up, down (LLaMA, Mistral, Mixtral's experts)
  gelu,         // up, GELU, down (GPT-3, NeMo's GPT configs)
  squared_relu  // up, relu(x)^2, down (Nemotron-4, Primer)
};
enum class DecoderNorm { rmsnorm, layernorm };    // layernorm: also Nemotron's layernorm1p (the same kernel)
enum class PositionEncoding { rotary, learned };  // learned: a table of seq rows added to the token embedding

// A LLaMA-family decoder: LLaMA 1-3, Mistral, Mixtral and DeepSeekMoE are this block with other numbers; with the
// last five fields, also the GPT-3 and Nemotron-4 blocks Megatron builds.
struct LlamaShape {
  std::int64_t layers = 32;
  std::int64_t hidden = 4096;
  std::int64_t heads = 32;
  std::optional<std::int64_t> kv_heads = std::nullopt;  // grouped-query attention; nullopt: as many as heads
  std::int64_t ffn = 11008;                             // SwiGLU width (of each expert, in a MoE)
  std::int64_t vocab = 32000;
  std::int64_t sequence_length = 2048;
  std::int64_t experts = 1;            // routed experts per MoE layer; 1: a dense MLP
  std::int64_t experts_per_token = 1;  // routed experts each token visits (top-k)
  std::int64_t shared_experts = 0;     // DeepSeekMoE: experts of width ffn every token visits besides
  std::int64_t dense_layers = 0;       // DeepSeekMoE: the first layers have a dense MLP of dense_ffn
  std::optional<std::int64_t> dense_ffn = std::nullopt;
  bool tied_embeddings = false;  // the LM head reads the token table (no parameters of its own)
  AttentionKernel attention = AttentionKernel::flash;
  MlpActivation mlp = MlpActivation::swiglu;
  DecoderNorm norm = DecoderNorm::rmsnorm;
  PositionEncoding positions = PositionEncoding::rotary;
  bool bias = false;     // every projection has a bias (GPT-3's); the router never does
  bool dropout = false;  // dropout on the attention probabilities and after each block's two projections
};
// What is wrong with a shape: the field (named as the scenario's model.transformer keys: layers, hidden, heads,
// kv_heads, ffn, vocab, seq, experts, experts_per_token, shared_experts, dense_layers, dense_ffn; empty for the
// shape as a whole) and why. Checks positivity, heads dividing hidden, kv_heads dividing heads, k <= experts, and
// sizes whose parameter or FLOP counts would leave int64, more than 10,000 layers.
struct ShapeProblem {
  std::string field;
  std::string message;
};
std::optional<ShapeProblem> check_shape(const LlamaShape& shape);
// Pre-norm decoder: by default pre-RMSNorm with rotary positions, bias-free projections and SwiGLU MLPs (or a
// router and SwiGLU experts), the parts as the shape says otherwise; throws InputError with check_shape's message
// for a bad shape.
ModelSpec llama(std::string name, const LlamaShape& shape);

}  // namespace syncsim
