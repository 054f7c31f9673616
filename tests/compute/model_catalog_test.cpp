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

TEST_CASE("saved activations per transformer layer equal Korthikanti et al.'s s·h·(34 + 5as/h)", "[model_catalog]") {
  // Bytes at 16 bits (2 per element) plus 1-byte dropout masks; Korthikanti et al., MLSys'23, §4.1.
  const auto bytes16 = [](const Totals& t) { return 2 * t.saved_elements + t.mask_bytes; };
  const std::int64_t bert = 512LL * 1024 * 34 + 5LL * 16 * 512 * 512;
  CHECK(bytes16(totals(find_model("bert-large"), "encoder.layer.0.")) == bert);
  const std::int64_t gpt = 1024LL * 768 * 34 + 5LL * 12 * 1024 * 1024;
  CHECK(bytes16(totals(find_model("gpt2"), "h.11.")) == gpt);
}

TEST_CASE("aliases, shape options and their errors", "[model_catalog]") {
  CHECK(find_model("ResNet-50").name() == "resnet50");
  CHECK(find_model("BERT_LARGE").name() == "bert-large");
  CHECK(find_model("gpt-2").name() == "gpt2");
  CHECK(find_model("7B").name() == "llama-7b");
  CHECK(model_names().size() == 10);
  CHECK_THROWS_AS(find_model("alexnet"), InputError);
  CHECK_THROWS_WITH(
      find_model("alexnet"),
      Catch::Contains(
          "resnet50, resnet101, resnet152, resnext50, resnext101, inception3, vgg16, bert-large, gpt2, llama-7b"));

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
