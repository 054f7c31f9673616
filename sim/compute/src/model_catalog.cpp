#include "syncsim/compute/model_catalog.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <functional>

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
                   BertShape shape;
                   shape.sequence_length = o.sequence_length.value_or(shape.sequence_length);
                   return bert("bert-large", shape);
                 }});
    e.push_back({"gpt2", {"gpt-2", "gpt2-small"}, Family::transformer, [](const ModelOptions& o) {
                   GptShape shape;
                   shape.sequence_length = o.sequence_length.value_or(shape.sequence_length);
                   return gpt2("gpt2", shape);
                 }});
    e.push_back({"llama-7b", {"7b", "llama7b", "decoder-7b"}, Family::transformer, [](const ModelOptions& o) {
                   LlamaShape shape;
                   shape.sequence_length = o.sequence_length.value_or(shape.sequence_length);
                   return llama("llama-7b", shape);
                 }});
    return e;
  }();
  return entries;
}

std::string normalize(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '-' || c == '_' || c == ' ') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

const Entry* lookup(std::string_view name) {
  const std::string wanted = normalize(name);
  for (const Entry& entry : catalog()) {
    if (normalize(entry.name) == wanted) return &entry;
    for (std::string_view alias : entry.aliases) {
      if (normalize(alias) == wanted) return &entry;
    }
  }
  return nullptr;
}

}  // namespace

std::vector<std::string_view> model_names() {
  std::vector<std::string_view> names;
  for (const Entry& entry : catalog()) names.push_back(entry.name);
  return names;
}

ModelSpec find_model(std::string_view name, const ModelOptions& options) {
  const Entry* entry = lookup(name);
  if (entry == nullptr) {
    throw InputError(fmt::format("unknown model '{}': expected one of {} (or an inline definition)", name,
                                 fmt::join(model_names(), ", ")));
  }
  if (entry->family == Family::cnn && options.sequence_length) {
    throw InputError(fmt::format("model '{}' is a CNN: it takes an image size, not a sequence length", entry->name));
  }
  if (entry->family == Family::transformer && options.image_size) {
    throw InputError(
        fmt::format("model '{}' is a transformer: it takes a sequence length, not an image size", entry->name));
  }
  return entry->build(options);
}

}  // namespace syncsim
