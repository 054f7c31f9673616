#include "syncsim/compute/model_catalog.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <functional>

#include "model_name.hpp"
#include "syncsim/compute/recommendation_model.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

enum class Family { cnn, transformer };

struct Entry {
  std::string_view name;
  std::vector<std::string_view> aliases;
  Family family;
  std::function<ModelSpec(const ModelOptions&)> build;
};

constexpr std::int64_t kImageNetSize = 224;
constexpr std::int64_t kInceptionSize = 299;  // Inception v3's ImageNet crop

std::int64_t image_size(const ModelOptions& options) {
  return options.image_size.value_or(kImageNetSize);
}

// A transformer's shape with the options applied: the sequence length, and the attention kernel.
template <typename Shape>
Shape shaped(Shape shape, const ModelOptions& options) {
  shape.sequence_length = options.sequence_length.value_or(shape.sequence_length);
  shape.attention = options.attention.value_or(shape.attention);
  return shape;
}

// Llama 3 (Meta's model cards and params.json): GQA with 8 key/value heads, a 128,256-token vocabulary, untied,
// pretrained on 8,192-token sequences (3.1's 405B config allows 131,072).
LlamaShape llama3(std::int64_t layers, std::int64_t hidden, std::int64_t heads, std::int64_t ffn) {
  return {.layers = layers,
          .hidden = hidden,
          .heads = heads,
          .kv_heads = 8,
          .ffn = ffn,
          .vocab = 128'256,
          .sequence_length = 8192};
}

void add_decoders(std::vector<Entry>& e) {
  const auto decoder = [&e](std::string_view name, std::vector<std::string_view> aliases, LlamaShape shape) {
    e.push_back({name, std::move(aliases), Family::transformer,
                 [name, shape](const ModelOptions& o) { return llama(std::string(name), shaped(shape, o)); }});
  };
  decoder("llama-7b", {"7b", "llama7b", "decoder-7b"}, LlamaShape{});
  decoder("llama3-8b", {"llama-3-8b", "meta-llama-3-8b", "llama3.1-8b", "llama-3.1-8b"}, llama3(32, 4096, 32, 14'336));
  decoder("llama3-70b", {"llama-3-70b", "meta-llama-3-70b", "llama3.1-70b", "llama-3.1-70b"},
          llama3(80, 8192, 64, 28'672));
  decoder("llama3-405b", {"llama-3-405b", "meta-llama-3.1-405b", "llama3.1-405b", "llama-3.1-405b"},
          llama3(126, 16'384, 128, 53'248));
  // Mixtral 8x7B (HF config.json): Mistral 7B's block with 8 SwiGLU experts, top-2, 32,768 positions.
  decoder("mixtral-8x7b", {"mixtral", "mixtral-8x7b-v0.1"},
          {.layers = 32,
           .hidden = 4096,
           .heads = 32,
           .kv_heads = 8,
           .ffn = 14'336,
           .vocab = 32'000,
           .sequence_length = 32'768,
           .experts = 8,
           .experts_per_token = 2});
  // DeepSeekMoE 16B (Dai et al. 2024, HF config.json): 64 fine-grained routed experts of 1,408, top-6, plus 2
  // shared ones; the first layer dense with a 10,944-wide MLP; 4,096 positions.
  decoder("deepseek-moe-16b", {"deepseekmoe-16b", "deepseek-moe-16b-base"},
          {.layers = 28,
           .hidden = 2048,
           .heads = 16,
           .ffn = 1408,
           .vocab = 102'400,
           .sequence_length = 4096,
           .experts = 64,
           .experts_per_token = 6,
           .shared_experts = 2,
           .dense_layers = 1,
           .dense_ffn = 10'944});
}

const std::vector<Entry>& catalog() {
  static const std::vector<Entry> entries = [] {
    std::vector<Entry> e;
    e.push_back({"resnet50", {"resnet-50", "resnet_v1_50"}, Family::cnn, [](const ModelOptions& o) {
                   return resnet("resnet50", {3, 4, 6, 3}, image_size(o));
                 }});
    e.push_back({"resnet101", {"resnet-101"}, Family::cnn, [](const ModelOptions& o) {
                   return resnet("resnet101", {3, 4, 23, 3}, image_size(o));
                 }});
    e.push_back({"resnet152", {"resnet-152"}, Family::cnn, [](const ModelOptions& o) {
                   return resnet("resnet152", {3, 8, 36, 3}, image_size(o));
                 }});
    e.push_back({"resnext50", {"resnext50_32x4d", "resnext-50"}, Family::cnn, [](const ModelOptions& o) {
                   return resnet("resnext50", {3, 4, 6, 3}, image_size(o), 1000, {.groups = 32, .width_per_group = 4});
                 }});
    e.push_back(
        {"resnext101", {"resnext101_32x8d", "resnext-101"}, Family::cnn, [](const ModelOptions& o) {
           return resnet("resnext101", {3, 4, 23, 3}, image_size(o), 1000, {.groups = 32, .width_per_group = 8});
         }});
    e.push_back({"inception3", {"inception_v3", "inception-v3", "inceptionv3"}, Family::cnn, [](const ModelOptions& o) {
                   return inception_v3(o.image_size.value_or(kInceptionSize));
                 }});
    e.push_back({"vgg16", {"vgg-16"}, Family::cnn, [](const ModelOptions& o) { return vgg16(image_size(o)); }});
    e.push_back({"bert-large", {"bert-large-uncased", "bert_large"}, Family::transformer, [](const ModelOptions& o) {
                   return bert("bert-large", shaped(BertShape{}, o));
                 }});
    e.push_back({"gpt2", {"gpt-2", "gpt2-small"}, Family::transformer, [](const ModelOptions& o) {
                   return gpt2("gpt2", shaped(GptShape{}, o));
                 }});
    // GPT-3 175B (Brown et al. 2020, table 2.1): GPT-2's block at 96 x 12,288, 96 heads, 2,048 positions, tied.
    e.push_back({"gpt3-175b", {"gpt-3", "gpt3", "gpt-3-175b"}, Family::transformer, [](const ModelOptions& o) {
                   const GptShape shape{
                       .layers = 96, .hidden = 12'288, .heads = 96, .max_positions = 2048, .sequence_length = 2048};
                   return gpt2("gpt3-175b", shaped(shape, o));
                 }});
    add_decoders(e);
    return e;
  }();
  return entries;
}

using compute_detail::normalize_model_name;

const Entry* lookup(std::string_view name) {
  const std::string wanted = normalize_model_name(name);
  for (const Entry& entry : catalog()) {
    if (normalize_model_name(entry.name) == wanted) return &entry;
    for (std::string_view alias : entry.aliases) {
      if (normalize_model_name(alias) == wanted) return &entry;
    }
  }
  return nullptr;
}

}  // namespace

std::vector<std::string_view> model_names() {
  std::vector<std::string_view> names;
  for (const Entry& entry : catalog()) names.push_back(entry.name);
  for (std::string_view name : recommendation_names()) names.push_back(name);
  return names;
}

ModelSpec find_model(std::string_view name, const ModelOptions& options) {
  const Entry* entry = lookup(name);
  if (entry == nullptr) {
    std::string_view canonical;
    if (auto recommendation = find_recommendation(name, &canonical)) {
      if (options.sequence_length || options.image_size || options.attention) {
        throw InputError(
            fmt::format("model '{}' is a recommendation model: it takes no sequence length, image size "
                        "or attention",
                        canonical));
      }
      return recommendation_model(std::string(canonical), *recommendation);
    }
    throw InputError(fmt::format("unknown model '{}': expected one of {} (or an inline definition)", name,
                                 fmt::join(model_names(), ", ")));
  }
  if (entry->family == Family::cnn && options.sequence_length) {
    throw InputError(fmt::format("model '{}' is a CNN: it takes an image size, not a sequence length", entry->name));
  }
  if (entry->family == Family::cnn && options.attention) {
    throw InputError(fmt::format("model '{}' is a CNN: it has no attention", entry->name));
  }
  if (entry->family == Family::transformer && options.image_size) {
    throw InputError(
        fmt::format("model '{}' is a transformer: it takes a sequence length, not an image size", entry->name));
  }
  return entry->build(options);
}

}  // namespace syncsim
