#include <catch2/catch.hpp>

#include <string>

#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/compute/precision.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;

namespace {
// Sums over the layers whose name starts with `prefix`.
struct Totals {
  std::int64_t params = 0;
  std::int64_t flops = 0;
  std::int64_t saved_elements = 0;
  std::int64_t mask_bytes = 0;
  int layers = 0;
};
Totals totals(const ModelSpec& m, const std::string& prefix) {
  Totals t;
  for (const Layer& l : m.layers()) {
    if (l.name.rfind(prefix, 0) != 0) continue;
    t.params += l.params;
    t.flops += l.forward_flops;
    t.saved_elements += l.saved_elements;
    t.mask_bytes += l.saved_mask_bytes;
    ++t.layers;
  }
  return t;
}

// Megatron-LM's count per sample, forward share (Narayanan et al., SC'21, FLOP-count appendix, whose total also
// covers backward and recomputation): matrix products 2·s·(matmul params per layer)·L, attention 4·s²·h·L, logits
// 2·s·h·V.
double transformer_flops(double layers, double seq, double hidden, double matmul_params_per_layer,
                         double logits_vocab) {
  return 2 * seq * matmul_params_per_layer * layers + 4 * seq * seq * hidden * layers + 2 * seq * hidden * logits_vocab;
}
}  // namespace

TEST_CASE("catalog parameter counts equal the published ones exactly", "[model_catalog]") {
  // torchvision's model tables; HF BertModel (with pooler); HF GPT-2 small (tied LM head); LLaMA-7B (untied).
  CHECK(find_model("resnet50").params() == 25'557'032);
  CHECK(find_model("resnet101").params() == 44'549'160);
  CHECK(find_model("resnet152").params() == 60'192'808);
  CHECK(find_model("resnext50").params() == 25'028'904);
  CHECK(find_model("resnext101").params() == 88'791'336);
  CHECK(find_model("inception3").params() == 27'161'264);  // with the auxiliary head, as torchvision trains it
  CHECK(find_model("vgg16").params() == 138'357'544);
  CHECK(find_model("bert-large").params() == 335'141'888);
  CHECK(find_model("gpt2").params() == 124'439'808);
  CHECK(find_model("llama-7b").params() == 6'738'415'616);
}

TEST_CASE("the large-model entries have their published parameter totals", "[model_catalog]") {
  // Decoder, per layer: q and o 2h², k and v 2·h·(g·h/a) (GQA, g key/value heads), SwiGLU 3·h·f, two RMSNorms
  // 2h; plus the token table V·h, the untied LM head V·h and the final norm h.
  // Llama 3 8B: 32 x (2·4096² + 2·4096·1024 + 3·4096·14336 + 8192) + 2·128256·4096 + 4096 = 8,030,261,248
  // (Meta's model card: 8.03 B).
  CHECK(find_model("llama3-8b").params() == 8'030'261'248);
  // Llama 3 70B: 80 x (2·8192² + 2·8192·1024 + 3·8192·28672 + 16384) + 2·128256·8192 + 8192 = 70,553,706,496.
  CHECK(find_model("llama3-70b").params() == 70'553'706'496);
  // Llama 3.1 405B: 126 x (2·16384² + 2·16384·1024 + 3·16384·53248 + 32768) + 2·128256·16384 + 16384
  // = 405,853,388,800.
  CHECK(find_model("llama3-405b").params() == 405'853'388'800);
  // Mixtral 8x7B: 32 x (2·4096² + 2·4096·1024 + 8·3·4096·14336 + 4096·8 router + 8192) + 2·32000·4096 + 4096
  // = 46,702,792,704 (Mistral AI: 46.7 B).
  CHECK(find_model("mixtral-8x7b").params() == 46'702'792'704);
  // GPT-3 175B, GPT-2's block (4 h² + 4 h attention, 8 h² + 5 h MLP, 2 x 2 h layer norms = 12 h² + 13 h per
  // layer): 96 x (12·12288² + 13·12288) + 50257·12288 (tied) + 2048·12288 positions + 2·12288 = 174,604,259,328;
  // the paper's table 2.1 rounds it to 175.0 B.
  CHECK(find_model("gpt3-175b").params() == 174'604'259'328);
  // DeepSeekMoE 16B: 28 x (4·2048² attention + 4096 norms) + 1 dense layer of 3·2048·10944 + 27 MoE layers of
  // (64 + 2 shared) x 3·2048·1408 + 2048·64 router, + 2·102400·2048 + 2048 = 16,375,728,128. Dai et al. (2024)
  // publish only the rounded 16.4 B, so this one is held to it within 0.5 % (it is 0.15 % below).
  const std::int64_t deepseek = 28LL * (4 * 2048LL * 2048 + 4096) + 3LL * 2048 * 10944 +
                                27LL * (66LL * 3 * 2048 * 1408 + 2048LL * 64) + 2LL * 102400 * 2048 + 2048;
  CHECK(find_model("deepseek-moe-16b").params() == deepseek);
  CHECK(static_cast<double>(deepseek) == Approx(16.4e9).epsilon(0.005));
}

TEST_CASE("grouped-query attention, experts and tied embeddings in the decoder generator", "[model_catalog]") {
  // GQA: k_proj and v_proj produce 8 heads of 128; attention FLOPs are the same as with 32 key/value heads.
  const ModelSpec l3 = find_model("llama3-8b");
  CHECK(totals(l3, "layers.0.self_attn.k_proj").params == 4096LL * 1024);
  const std::int64_t s = 8192;
  CHECK(totals(l3, "layers.0.self_attn.flash_attention").flops == 4 * s * s * 4096 + 5 * 32 * s * s);
  // Mixtral: every expert's weights count, 2 of 8 experts' FLOPs per token.
  const ModelSpec mix = find_model("mixtral-8x7b", {.sequence_length = 4096});
  const Totals experts = totals(mix, "layers.3.mlp.experts.");
  CHECK(experts.params == 8LL * 3 * 4096 * 14336);
  CHECK(totals(mix, "layers.3.mlp.experts.gate_proj").flops == 2LL * 4096 * 2 * 4096 * 14336);
  CHECK(totals(mix, "layers.3.mlp.router").params == 4096LL * 8);
  CHECK(static_cast<double>(mix.forward_flops()) ==
        Approx(transformer_flops(32, 4096, 4096, 2.0 * 4096 * 4096 + 2.0 * 4096 * 1024 + 2 * 3.0 * 4096 * 14336, 32000))
            .epsilon(0.01));
  // DeepSeekMoE: layer 0 dense, the others routed plus shared experts.
  const ModelSpec ds = find_model("deepseek-moe-16b");
  CHECK(totals(ds, "layers.0.mlp.").params == 3LL * 2048 * 10944);
  CHECK(totals(ds, "layers.1.mlp.shared_experts.").params == 2LL * 3 * 2048 * 1408);
  CHECK(totals(ds, "layers.0.mlp.experts.").layers == 0);
  // Tied: the head reads the token table and owns nothing.
  const LlamaShape tied{.layers = 2, .hidden = 256, .heads = 4, .ffn = 512, .vocab = 1000, .tied_embeddings = true};
  LlamaShape untied = tied;
  untied.tied_embeddings = false;
  CHECK(llama("t", untied).params() - llama("t", tied).params() == 1000 * 256);
  CHECK(totals(llama("t", tied), "lm_head").flops == 2LL * 2048 * 256 * 1000);
}

TEST_CASE("decoder shapes are checked field by field", "[model_catalog]") {
  const auto field = [](const LlamaShape& shape) { return check_shape(shape).value_or(ShapeProblem{"ok", ""}).field; };
  CHECK(field({}) == "ok");
  CHECK(field({.heads = 30}) == "heads");
  CHECK(field({.kv_heads = 5}) == "kv_heads");
  CHECK(field({.kv_heads = 0}) == "kv_heads");
  CHECK(field({.experts = 8, .experts_per_token = 9}) == "experts_per_token");
  CHECK(field({.shared_experts = 2}) == "shared_experts");
  CHECK(field({.sequence_length = -1}) == "seq");
  CHECK(field({.layers = 10'001}) == "layers");
  CHECK(field({.layers = 10'000, .hidden = 1 << 20, .heads = 1 << 10}).empty());  // 4e16 parameters, 2e20 FLOPs
  CHECK_THROWS_WITH(llama("l", {.kv_heads = 5}), Catch::Contains("5 key/value heads do not divide the 32 heads"));
}

TEST_CASE("the generated layers have the architectures' structure", "[model_catalog]") {
  const ModelSpec r50 = find_model("resnet50");
  int convs = 0;
  for (const Layer& l : r50.layers()) convs += l.name.find("conv") != std::string::npos ? 1 : 0;
  CHECK(convs == 53);  // 1 stem + 16 bottlenecks x 3 + 4 downsample projections
  // One BERT-large encoder layer: 4 x (h² + h) + 2 x (4h² + ...) + 2 layer norms = 12,596,224.
  CHECK(totals(find_model("bert-large"), "encoder.layer.7.").params == 12'596'224);
  CHECK(totals(find_model("gpt2"), "h.3.").params == 7'087'872);
  const ModelSpec llama = find_model("llama-7b");
  CHECK(totals(llama, "layers.31.").params == 4 * 4096LL * 4096 + 3 * 4096LL * 11008 + 2 * 4096);
  CHECK(totals(llama, "lm_head").params == 32000LL * 4096);
  // GPT-2's head is tied: it reads the token table but owns no parameters.
  const Totals head = totals(find_model("gpt2"), "lm_head");
  CHECK(head.params == 0);
  CHECK(head.flops == 2LL * 1024 * 768 * 50257);
}

TEST_CASE("CNN forward FLOPs are twice torchvision's published multiply-adds, within 1 %", "[model_catalog]") {
  // torchvision model tables (its "GFLOPS" column counts multiply-adds) at 224x224: ResNet-50 4.09, ResNet-101
  // 7.80, VGG-16 15.47. Ours add bias, batch norm, ReLU and pooling work on top of the products.
  CHECK(static_cast<double>(find_model("resnet50").forward_flops()) == Approx(2 * 4.09e9).epsilon(0.01));
  CHECK(static_cast<double>(find_model("resnet101").forward_flops()) == Approx(2 * 7.80e9).epsilon(0.01));
  CHECK(static_cast<double>(find_model("vgg16").forward_flops()) == Approx(2 * 15.47e9).epsilon(0.01));
}

TEST_CASE("CNN convolution and classifier FLOPs equal torchvision's, counted layer by layer", "[model_catalog]") {
  // 2 x multiply-adds (+ bias) of every Conv2d and Linear in torchvision 0.14's models, from forward hooks in
  // training mode (Inception v3 with its auxiliary head, at 299x299; the others at 224x224).
  const auto products = [](const ModelSpec& model) {
    std::int64_t flops = 0;
    for (const Layer& l : model.layers()) {
      if (l.params > 0 && l.name.find("bn") == std::string::npos) flops += l.forward_flops;
    }
    return flops;
  };
  CHECK(products(find_model("resnet50")) == 8'178'369'512);
  CHECK(products(find_model("resnet152")) == 23'027'254'248);
  CHECK(products(find_model("resnext50")) == 8'460'960'744);
  CHECK(products(find_model("resnext101")) == 32'828'031'976);
  CHECK(products(find_model("inception3")) == 11'437'800'592);
  CHECK_THROWS_WITH(find_model("inception3", {.image_size = 74}), Catch::Contains("at least 75 pixels"));
  CHECK(find_model("Inception_V3").name() == "inception3");
  CHECK(find_model("resnext101_32x8d").name() == "resnext101");
}

TEST_CASE("transformer forward FLOPs match Megatron-LM's closed form within 1 %", "[model_catalog]") {
  // BERT-large, s = 512, h = 1024, 12h² matmul params per layer, no LM head in BertModel.
  CHECK(static_cast<double>(find_model("bert-large").forward_flops()) ==
        Approx(transformer_flops(24, 512, 1024, 12.0 * 1024 * 1024, 0)).epsilon(0.01));
  // GPT-2 small, s = 1024, h = 768, logits over 50,257 tokens.
  CHECK(static_cast<double>(find_model("gpt2").forward_flops()) ==
        Approx(transformer_flops(12, 1024, 768, 12.0 * 768 * 768, 50257)).epsilon(0.01));
  // LLaMA-7B, s = 2048: attention 4h² and SwiGLU 3·h·11008 matmul params per layer.
  CHECK(static_cast<double>(find_model("llama-7b").forward_flops()) ==
        Approx(transformer_flops(32, 2048, 4096, 4.0 * 4096 * 4096 + 3.0 * 4096 * 11008, 32000)).epsilon(0.01));
}

TEST_CASE("the large models' forward FLOPs match Megatron-LM's closed form within 1 %", "[model_catalog]") {
  // GPT-3 175B, s = 2048: 12h² per layer, tied logits over 50,257 tokens.
  CHECK(static_cast<double>(find_model("gpt3-175b").forward_flops()) ==
        Approx(transformer_flops(96, 2048, 12288, 12.0 * 12288 * 12288, 50257)).epsilon(0.01));
  // Llama 3 8B, s = 8192: GQA's k and v are h x 1024 each.
  CHECK(static_cast<double>(find_model("llama3-8b").forward_flops()) ==
        Approx(transformer_flops(32, 8192, 4096, 2.0 * 4096 * 4096 + 2.0 * 4096 * 1024 + 3.0 * 4096 * 14336, 128256))
            .epsilon(0.01));
  // DeepSeekMoE 16B, s = 4096: per layer on average, 4h² attention, the dense layer's 3·h·10944, and on 27 layers
  // the 6 routed and 2 shared experts each token visits (3·h·1408 each) plus the router h x 64.
  const double moe_layer = 8 * 3.0 * 2048 * 1408 + 2048.0 * 64;
  const double matmul = 4.0 * 2048 * 2048 + (3.0 * 2048 * 10944 + 27 * moe_layer) / 28;
  CHECK(static_cast<double>(find_model("deepseek-moe-16b").forward_flops()) ==
        Approx(transformer_flops(28, 4096, 2048, matmul, 102400)).epsilon(0.01));
}

TEST_CASE("saved activations per transformer layer equal Korthikanti et al.'s s·h·(34 + 5as/h)", "[model_catalog]") {
  // Eager attention. Bytes at 16 bits (2 per element) plus 1-byte dropout masks; Korthikanti et al., MLSys'23,
  // §4.1.
  const auto bytes16 = [](const Totals& t) { return 2 * t.saved_elements + t.mask_bytes; };
  const ModelOptions eager{.attention = AttentionKernel::eager};
  const std::int64_t bert = 512LL * 1024 * 34 + 5LL * 16 * 512 * 512;
  CHECK(bytes16(totals(find_model("bert-large", eager), "encoder.layer.0.")) == bert);
  const std::int64_t gpt = 1024LL * 768 * 34 + 5LL * 12 * 1024 * 1024;
  CHECK(bytes16(totals(find_model("gpt2", eager), "h.11.")) == gpt);
}

TEST_CASE("flash attention keeps s·h·34 bytes and the softmax statistics per layer, the same FLOPs",
          "[model_catalog]") {
  // The 5·a·s² of the probabilities and their dropout mask are gone; the row max and sum, 2 fp32 (8 bytes) per
  // row per head, stay (FlashAttention, Dao et al. 2022, §3.1).
  const auto bytes16 = [](const Totals& t) { return 2 * t.saved_elements + t.mask_bytes; };
  CHECK(bytes16(totals(find_model("gpt2"), "h.11.")) == 1024LL * 768 * 34 + 8LL * 12 * 1024);
  CHECK(bytes16(totals(find_model("bert-large"), "encoder.layer.0.")) == 512LL * 1024 * 34 + 8LL * 16 * 512);
  CHECK(find_model("gpt2").forward_flops() ==
        find_model("gpt2", {.attention = AttentionKernel::eager}).forward_flops());
  CHECK_THROWS_WITH(find_model("resnet50", {.attention = AttentionKernel::eager}), Catch::Contains("no attention"));
}

TEST_CASE("aliases, shape options and their errors", "[model_catalog]") {
  CHECK(find_model("ResNet-50").name() == "resnet50");
  CHECK(find_model("BERT_LARGE").name() == "bert-large");
  CHECK(find_model("gpt-2").name() == "gpt2");
  CHECK(find_model("7B").name() == "llama-7b");
  CHECK(find_model("meta-llama-3-70b").name() == "llama3-70b");
  CHECK(find_model("Llama-3-8B").name() == "llama3-8b");
  CHECK(find_model("gpt-3").name() == "gpt3-175b");
  CHECK(model_names().size() == 20);  // and the four recommendation models (recommendation_model.hpp)
  CHECK_THROWS_AS(find_model("alexnet"), InputError);
  CHECK_THROWS_WITH(
      find_model("alexnet"),
      Catch::Contains(
          "resnet50, resnet101, resnet152, resnext50, resnext101, inception3, vgg16, bert-large, gpt2, gpt3-175b, "
          "llama-7b, llama3-8b, llama3-70b, llama3-405b, mixtral-8x7b, deepseek-moe-16b"));

  // Shorter sequences: same parameters, fewer FLOPs; beyond the learned positions is an error.
  const ModelSpec short_bert = find_model("bert-large", {.sequence_length = 128});
  CHECK(short_bert.params() == 335'141'888);
  CHECK(short_bert.forward_flops() < find_model("bert-large").forward_flops() / 3);
  CHECK_THROWS_WITH(find_model("bert-large", {.sequence_length = 1024}), Catch::Contains("512 learned positions"));
  CHECK(find_model("llama-7b", {.sequence_length = 4096}).params() == 6'738'415'616);  // rotary: any length
  // Twice the side, four times the convolution work, same parameters.
  const ModelSpec big = find_model("resnet50", {.image_size = 448});
  CHECK(big.params() == 25'557'032);
  CHECK(static_cast<double>(big.forward_flops()) ==
        Approx(4.0 * static_cast<double>(find_model("resnet50").forward_flops())).epsilon(0.01));
  CHECK_THROWS_WITH(find_model("gpt2", {.image_size = 224}), Catch::Contains("not an image size"));
  CHECK_THROWS_WITH(find_model("vgg16", {.sequence_length = 128}), Catch::Contains("not a sequence length"));
  CHECK_THROWS_WITH(find_model("resnet50", {.image_size = 16}), Catch::Contains("at least 32"));
  CHECK_THROWS_WITH(find_model("gpt2", {.sequence_length = 0}), Catch::Contains("sequence length must be positive"));
}

TEST_CASE("the generators reject impossible shapes", "[model_catalog]") {
  CHECK_THROWS_WITH(bert("b", {.hidden = 1000, .heads = 16}), Catch::Contains("not a multiple of 16 heads"));
  CHECK_THROWS_WITH(resnet("r", {3, 4, 6}), Catch::Contains("4 stages"));
  CHECK_THROWS_WITH(resnet("r", {3, 0, 6, 3}), Catch::Contains("at least one block"));
  CHECK_THROWS_WITH(llama("l", {.layers = 0}), Catch::Contains("layers must be positive"));
}

TEST_CASE("layers say which kernel they are: the blocks' GEMMs apart from the head and the router", "[model_catalog]") {
  // Llama 3 8B: 32 blocks of q, k, v, o, gate, up and down projections run as the blocks' GEMMs; the LM head, the
  // token table and flash attention are kinds of their own.
  const ModelSpec llama = find_model("llama3-8b");
  std::int64_t gemm_params = 0;
  int gemms = 0;
  for (const Layer& l : llama.layers()) {
    if (l.kind != LayerKind::gemm) continue;
    ++gemms;
    gemm_params += l.params;
  }
  CHECK(gemms == 32 * 7);
  // Per block 2h² + 2·h·(g·h/a) + 3·h·f with h 4096, 8 of 32 key/value heads, f 14336.
  CHECK(gemm_params == 32 * (2 * 4096LL * 4096 + 2 * 4096LL * 1024 + 3 * 4096LL * 14336));
  for (const Layer& l : llama.layers()) {
    if (l.name == "lm_head") CHECK(l.kind == LayerKind::gemm_kept);
    if (l.name == "embed_tokens") CHECK(l.kind == LayerKind::embedding);
    if (l.name.ends_with("flash_attention")) CHECK(l.kind == LayerKind::attention);
    if (l.name.ends_with("norm")) CHECK(l.kind == LayerKind::other);
  }
  // A MoE block's router stays in 16 bits; its experts' grouped GEMMs are block GEMMs.
  const ModelSpec mixtral = find_model("mixtral-8x7b");
  for (const Layer& l : mixtral.layers()) {
    if (l.name.ends_with("router")) CHECK(l.kind == LayerKind::gemm_kept);
    if (l.name.ends_with("experts.down_proj")) CHECK(l.kind == LayerKind::gemm);
  }
  // A CNN: convolutions and a classifier, none of them a block GEMM.
  const ModelSpec resnet = find_model("resnet50");
  for (const Layer& l : resnet.layers()) {
    CHECK(l.kind != LayerKind::gemm);
    if (l.name == "fc") CHECK(l.kind == LayerKind::gemm_kept);
    if (l.name == "conv1") CHECK(l.kind == LayerKind::convolution);
  }
}
