// The `model:` section: a catalog model or inline layers, batch, precision, optimizer and compute knobs.
#include <fmt/format.h>

#include <filesystem>
#include <map>

#include "enum_names.hpp"
#include "field_reader.hpp"
#include "sections.hpp"
#include "syncsim/core/input_file.hpp"
#include "syncsim/scenario/global_batch.hpp"

namespace syncsim::scenario_detail {

namespace {

// Inline layers after `repeat` is expanded: far beyond any model (the largest catalog one has under a thousand),
// and each expanded layer is a value in memory, so a `repeat: 1000000000` is refused before it is expanded.
constexpr std::int64_t kMaxLayers = 100'000;
// A measured iteration longer than a day is a unit mistake, not a GPU (10^18 s would also overflow the clock).
constexpr SimTime kMaxStepTime = SimTime::from_seconds(86'400);
// Compute knobs within which per-layer times stay on the simulated clock: an efficiency of 1e-300 would make a
// microsecond kernel last 10^294 s, a kernel overhead of an hour per layer is no GPU's.
constexpr double kMinEfficiency = 1e-6;
constexpr SimTime kMaxKernelOverhead = SimTime::from_seconds(1);
// Samples per GPU per micro-batch, and micro-batches: counts that multiply into the global batch (an int64).
constexpr std::int64_t kMaxBatch = std::int64_t{1} << 24;
// A layers file (syncsim import-model) takes about 200 bytes a layer: 64 MiB is far past kMaxLayers of them.
constexpr std::uint64_t kMaxLayersFileBytes = std::uint64_t{64} << 20;

struct LayerEntry {
  Located<Layer> layer;
  std::int64_t repeat = 1;
};

// `weight_shape: [rows, cols]`: the layer's weight matrix as PowerSGD views it (model_spec.hpp), within params.
void read_weight_shape(const ConfigNode& node, const std::string& path, Layer& layer) {
  const auto& items = read_list(node, path);
  if (items.size() != 2) fail(node, path, "expected [rows, cols]: the weight's first dimension and the rest");
  const std::int64_t rows = read_count(items[0], item_path(path, 0), 1);
  const std::int64_t cols = read_count(items[1], item_path(path, 1), 1);
  if (rows > layer.params / cols) {
    fail(node, path, fmt::format("a {} x {} weight holds more than the layer's {} params", rows, cols, layer.params));
  }
  layer.weight_rows = rows;
  layer.weight_cols = cols;
  layer.weight_matrices = 1;
}

LayerEntry read_layer(const ConfigNode& node, const std::string& path) {
  const MapReader reader(node, path,
                         {"name", "params", "forward_flops", "weight_elements_read", "activation_elements_moved",
                          "saved_elements", "saved_mask_bytes", "weight_shape", "kind", "repeat"});
  LayerEntry entry;
  entry.layer.where = node.where;
  entry.layer.key = path;
  Layer& layer = entry.layer.value;
  layer.name = read_text(reader.require("name"), reader.path("name"));
  if (layer.name.empty()) fail(reader.require("name"), reader.path("name"), "expected a layer name");
  const auto count = [&](std::string_view key, std::int64_t& field) {
    if (const ConfigNode* value = reader.get(key)) field = read_whole(*value, reader.path(key), 0);
  };
  layer.params = read_whole(reader.require("params", "trainable parameters, 0 for none"), reader.path("params"), 0);
  layer.weight_elements_read = layer.params;  // every weight is read once per pass, unless told otherwise
  count("forward_flops", layer.forward_flops);
  count("weight_elements_read", layer.weight_elements_read);
  count("activation_elements_moved", layer.activation_elements_moved);
  count("saved_elements", layer.saved_elements);
  count("saved_mask_bytes", layer.saved_mask_bytes);
  if (layer.forward_flops == 0 && layer.weight_elements_read == 0 && layer.activation_elements_moved == 0) {
    fail(node, path, "the layer does no work: give it forward_flops or elements moved");
  }
  if (const ConfigNode* shape = reader.get("weight_shape"))
    read_weight_shape(*shape, reader.path("weight_shape"), layer);
  if (const ConfigNode* kind = reader.get("kind"))
    layer.kind = read_choice(*kind, reader.path("kind"), kLayerKindNames);
  if (const ConfigNode* repeat = reader.get("repeat")) entry.repeat = read_count(*repeat, reader.path("repeat"), 1);
  return entry;
}

std::vector<Located<Layer>> read_layers(const ConfigNode& node, const std::string& path) {
  const auto& items = read_list(node, path);
  if (items.empty()) fail(node, path, "expected at least one layer");
  std::vector<Located<Layer>> layers;
  std::map<std::string, std::string, std::less<>> first_given;  // layer name -> key path of its entry
  bool any_params = false;
  std::int64_t expanded = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const LayerEntry entry = read_layer(items[i], item_path(path, i));
    if (entry.repeat > kMaxLayers - expanded) {
      fail(items[i], child_path(entry.layer.key, "repeat"),
           fmt::format("the model would have more than {} layers ({} before this entry, {} repeats of it)", kMaxLayers,
                       expanded, entry.repeat));
    }
    expanded += entry.repeat;
    const std::string& name = entry.layer.value.name;
    const auto [previous, fresh] = first_given.emplace(name, entry.layer.key);
    if (!fresh)
      fail(items[i], child_path(entry.layer.key, "name"),
           fmt::format("layer '{}' is already {}", name, previous->second));
    any_params = any_params || entry.layer.value.params > 0;
    if (entry.repeat == 1) {
      layers.push_back(entry.layer);
      continue;
    }
    for (std::int64_t k = 0; k < entry.repeat; ++k) {
      Located<Layer> copy = entry.layer;
      copy.value.name = fmt::format("{}.{}", name, k);
      if (!first_given.emplace(copy.value.name, entry.layer.key).second) {
        fail(items[i], child_path(entry.layer.key, "repeat"),
             fmt::format("repeating '{}' makes a layer '{}', and one is already named so", name, copy.value.name));
      }
      layers.push_back(std::move(copy));
    }
  }
  if (!any_params) fail(node, path, "the model has no parameters: nothing to synchronize");
  return layers;
}

// `model.layers: FILE`: a layers file as `syncsim import-model` writes it (name, source, input, layers), its path
// resolved against the scenario's folder. Its layers are read as inline ones, and their errors point into that
// file (resnet50.yaml:14:5: layers[9].params: ...). Returns the file's name, the model's label unless model.name
// gives one.
std::optional<Located<std::string>> read_layers_file(const ConfigNode& node, const std::string& path,
                                                     const std::filesystem::path& base_dir, ModelConfig& model) {
  std::filesystem::path file(read_text(node, path, "a list of layers, or the path of a layers file"));
  if (file.is_relative() && !base_dir.empty()) file = (base_dir / file).lexically_normal();
  const std::string text = read_input_file(file, "layers file", kMaxLayersFileBytes);
  const ConfigNode root = parse_config(text, file.string());
  if (root.kind != ConfigNode::Kind::mapping) {
    fail(root, "", fmt::format("expected a layers file (name, source, input, layers), got {}", describe(root)));
  }
  const MapReader reader(root, "", {"name", "source", "input", "layers"});
  model.layers = read_layers(reader.require("layers", "the model's layers"), reader.path("layers"));
  const ConfigNode* name = reader.get("name");
  if (!name) return std::nullopt;
  return located(read_text(*name, reader.path("name")), *name, reader.path("name"));
}

// model.profile and the batch it was taken at; the profile gives every layer's time, so no knob may scale them.
void read_profile(const MapReader& reader, const std::filesystem::path& base_dir, ModelConfig& model) {
  const ConfigNode* profile = reader.get("profile");
  if (!profile) {
    if (const ConfigNode* batch = reader.get("profile_batch")) {
      fail(*batch, reader.path("profile_batch"), "is the batch of a profiler trace: give model.profile too");
    }
    return;
  }
  for (const char* excluded : {"step_time", "efficiency", "backward_factor"}) {
    if (reader.get(excluded)) {
      fail(*profile, reader.path("profile"),
           fmt::format("gives every layer its measured forward and backward: remove model.{}", excluded));
    }
  }
  std::filesystem::path path(read_text(*profile, reader.path("profile"), "a file path"));
  if (path.is_relative() && !base_dir.empty()) path = (base_dir / path).lexically_normal();
  model.profile = located(path.string(), *profile, reader.path("profile"));
  const ConfigNode& batch = reader.require("profile_batch", "the batch per GPU the profiler trace was taken at");
  const std::int64_t samples = read_count(batch, reader.path("profile_batch"), 1);
  if (samples > kMaxBatch) {
    fail(batch, reader.path("profile_batch"),
         fmt::format("expected at most {} samples per GPU, got {}", kMaxBatch, samples));
  }
  model.profile_batch = located(samples, batch, reader.path("profile_batch"));
}

// model.chakra: a Chakra execution trace (one rank's file) whose compute and AllReduces replace the layers' times,
// the optimizer step and the bucket plan; the model stays for the report and the memory check. Its times are the
// trace's, so nothing may scale them.
void read_chakra(const MapReader& reader, const std::filesystem::path& base_dir, ModelConfig& model) {
  const ConfigNode* chakra = reader.get("chakra");
  if (!chakra) return;
  for (const char* excluded : {"profile", "step_time", "efficiency", "backward_factor"}) {
    if (reader.get(excluded)) {
      fail(*chakra, reader.path("chakra"),
           fmt::format("gives the iteration's compute and buckets from an execution trace: remove model.{}", excluded));
    }
  }
  std::filesystem::path path(read_text(*chakra, reader.path("chakra"), "a file path"));
  if (path.is_relative() && !base_dir.empty()) path = (base_dir / path).lexically_normal();
  model.chakra = located(path.string(), *chakra, reader.path("chakra"));
}

// model.collectives: a job's NCCL Inspector logs (a file or a list of files) whose per-step collective sequence is
// the iteration; nothing of the model's compute may be given beside it.
void read_collectives(const MapReader& reader, const std::filesystem::path& base_dir, ModelConfig& model) {
  const ConfigNode* collectives = reader.get("collectives");
  if (!collectives) return;
  for (const char* excluded : {"chakra", "profile", "step_time", "efficiency", "backward_factor"}) {
    if (reader.get(excluded)) {
      fail(*collectives, reader.path("collectives"),
           fmt::format("replays a job's collectives and the compute between them: remove model.{}", excluded));
    }
  }
  const auto resolved = [&](const ConfigNode& node, const std::string& path) {
    std::filesystem::path file(read_text(node, path, "a file path"));
    if (file.is_relative() && !base_dir.empty()) file = (base_dir / file).lexically_normal();
    return file.string();
  };
  std::vector<std::string> files;
  if (collectives->kind == ConfigNode::Kind::sequence) {
    const std::vector<ConfigNode>& items = read_list(*collectives, reader.path("collectives"));
    if (items.empty())
      fail(*collectives, reader.path("collectives"), "expected an NCCL Inspector log or a list of them");
    for (std::size_t i = 0; i < items.size(); ++i) {
      files.push_back(resolved(items[i], fmt::format("{}[{}]", reader.path("collectives"), i)));
    }
  } else {
    files.push_back(resolved(*collectives, reader.path("collectives")));
  }
  model.collectives = located(files, *collectives, reader.path("collectives"));
}

// model.layers (a list, or a layers file), model.transformer or model.hf_config: at most one, each defining the
// model instead of a name. Returns a layers file's own name.
std::optional<Located<std::string>> read_definition(const MapReader& reader, const std::filesystem::path& base_dir,
                                                    ModelConfig& model) {
  const char* given = nullptr;
  for (const char* key : {"layers", "transformer", "hf_config", "recommendation"}) {
    const ConfigNode* value = reader.get(key);
    if (value && given)
      fail(*value, reader.path(key), fmt::format("defines the model, and so does model.{}: give one", given));
    if (value) given = key;
  }
  if (!given) return std::nullopt;
  const std::string_view key = given;
  if (key == "recommendation") return std::nullopt;  // read_recommendation reads it
  const ConfigNode& value = *reader.get(key);
  if (key == "layers" && value.kind == ConfigNode::Kind::scalar) {
    return read_layers_file(value, reader.path(key), base_dir, model);
  }
  if (key == "layers") model.layers = read_layers(value, reader.path(key));
  if (key == "transformer") model.transformer = read_transformer(value, reader.path(key));
  if (key == "hf_config") model.transformer = read_hf_config_key(value, reader.path(key), base_dir);
  return std::nullopt;
}

// sequence_length, image_size and attention: a catalog model's options, or the shape's where they fit.
void read_shape_options(const MapReader& reader, ModelConfig& model) {
  for (const auto& [key, field] :
       {std::pair{"sequence_length", &model.sequence_length}, std::pair{"image_size", &model.image_size}}) {
    const ConfigNode* value = reader.get(key);
    if (!value) continue;
    if (model.recommendation.shape)
      fail(*value, reader.path(key), "shapes a transformer or a CNN, not a recommendation model");
    if (!model.layers.empty()) fail(*value, reader.path(key), "shapes a catalog model; inline layers give their own");
    if (model.transformer && std::string_view(key) == "image_size") fail(*value, reader.path(key), "shapes a CNN");
    if (reader.get("transformer") && std::string_view(key) == "sequence_length") {
      fail(*value, reader.path(key), "shapes a catalog model or an hf_config: give model.transformer.seq");
    }
    *field = located(read_count(*value, reader.path(key), 1), *value, reader.path(key));
  }
  if (model.transformer && model.sequence_length) {
    // Overrides the config's max_position_embeddings; the longer sequence may be too large to count.
    model.transformer->value.sequence_length = model.sequence_length->value;
    if (const auto problem = check_shape(model.transformer->value)) {
      fail(*reader.get("sequence_length"), reader.path("sequence_length"), problem->message);
    }
  }
  if (const ConfigNode* attention = reader.get("attention")) {
    if (model.recommendation.shape) fail(*attention, reader.path("attention"), "shapes a transformer");
    if (!model.layers.empty())
      fail(*attention, reader.path("attention"), "shapes a transformer; inline layers give their own");
    model.attention = located(read_choice(*attention, reader.path("attention"), kAttentionNames), *attention,
                              reader.path("attention"));
    if (model.transformer) model.transformer->value.attention = model.attention->value;
  }
}

}  // namespace

ModelConfig read_model(const ConfigNode& node, const std::filesystem::path& base_dir) {
  const MapReader reader(node, "model",
                         {"name",
                          "layers",
                          "transformer",
                          "hf_config",
                          "attention",
                          "sequence_length",
                          "image_size",
                          "batch_per_gpu",
                          "precision",
                          "micro_batches",
                          "global_batch",
                          "optimizer",
                          "backward_factor",
                          "efficiency",
                          "kernels",
                          "compile_loss",
                          "cross_entropy_loss_fusion",
                          "kernel_overhead",
                          "step_time",
                          "profile",
                          "profile_batch",
                          "chakra",
                          "collectives",
                          "recommendation",
                          "embedding_sharding",
                          "embedding_optimizer"});
  ModelConfig model;
  const std::optional<Located<std::string>> file_name = read_definition(reader, base_dir, model);
  model.recommendation = read_recommendation(reader);
  const bool defined = !model.layers.empty() || model.transformer || model.recommendation.shape;
  const ConfigNode* name =
      defined ? reader.get("name") : &reader.require("name", "a catalog model like resnet50, layers or transformer");
  model.name = name        ? located(read_text(*name, reader.path("name")), *name, reader.path("name"))
               : file_name ? *file_name
                           : reader.defaulted("name", std::string("custom-model"));
  read_shape_options(reader, model);
  const ConfigNode& batch = reader.require("batch_per_gpu", "samples per GPU per micro-batch");
  model.batch_per_gpu =
      located(read_count(batch, reader.path("batch_per_gpu"), 1), batch, reader.path("batch_per_gpu"));
  if (model.batch_per_gpu.value > kMaxBatch) {
    fail(batch, reader.path("batch_per_gpu"),
         fmt::format("expected at most {} samples per GPU, got {}", kMaxBatch, model.batch_per_gpu.value));
  }
  const ConfigNode* precision = reader.get("precision");
  model.precision = precision ? located(read_choice(*precision, reader.path("precision"), kPrecisionNames), *precision,
                                        reader.path("precision"))
                              : reader.defaulted("precision", Precision::fp32);
  if (const ConfigNode* micro = reader.get("micro_batches")) {
    model.micro_batches = read_count(*micro, reader.path("micro_batches"), 1);
    if (model.micro_batches > kMaxMicroBatches) {
      fail(*micro, reader.path("micro_batches"),
           fmt::format("expected at most {} micro-batches, got {}", kMaxMicroBatches, model.micro_batches));
    }
    model.micro_batches_given = true;
  }
  if (const ConfigNode* global = reader.get("global_batch")) {
    const std::int64_t samples = read_count(*global, reader.path("global_batch"), 1);
    if (samples > kMaxGlobalBatch) {
      fail(*global, reader.path("global_batch"),
           fmt::format("expected at most {} samples per iteration, got {}", kMaxGlobalBatch, samples));
    }
    model.global_batch = located(samples, *global, reader.path("global_batch"));
  }
  const ConfigNode* optimizer = reader.get("optimizer");
  model.optimizer = optimizer ? located(read_choice(*optimizer, reader.path("optimizer"), kOptimizerNames), *optimizer,
                                        reader.path("optimizer"))
                              : reader.defaulted("optimizer", Optimizer::adam);
  if (const ConfigNode* factor = reader.get("backward_factor")) {
    model.backward_factor =
        read_number_in(*factor, reader.path("backward_factor"), 0, 100, true, "a multiple of forward above zero");
  }
  if (const ConfigNode* overhead = reader.get("kernel_overhead")) {
    model.kernel_overhead = read_duration(*overhead, reader.path("kernel_overhead"));
    if (model.kernel_overhead > kMaxKernelOverhead) {
      fail(*overhead, reader.path("kernel_overhead"),
           fmt::format("expected a per-kernel overhead of at most 1s, got '{}'", overhead->text));
    }
  }
  if (const ConfigNode* kernels = reader.get("kernels")) {
    model.kernels =
        located(read_choice(*kernels, reader.path("kernels"), kKernelStyleNames), *kernels, reader.path("kernels"));
  }
  if (const ConfigNode* compile_loss = reader.get("compile_loss")) {
    model.compile_loss =
        located(read_bool(*compile_loss, reader.path("compile_loss")), *compile_loss, reader.path("compile_loss"));
    if (model.compile_loss.value && (!model.kernels || model.kernels->value == KernelStyle::fused)) {
      throw model.compile_loss.error(
          "compiles PyTorch's loss function: it needs model.kernels: eager or compiled (fused runs the loss as "
          "Megatron's fused cross entropy)");
    }
  }
  if (const ConfigNode* fusion = reader.get("cross_entropy_loss_fusion")) {
    const std::string key = reader.path("cross_entropy_loss_fusion");
    model.cross_entropy_loss_fusion = located(read_bool(*fusion, key), *fusion, key);
    if (model.cross_entropy_loss_fusion.value && model.kernels && model.kernels->value != KernelStyle::fused) {
      throw model.cross_entropy_loss_fusion.error(
          "fuses Megatron's vocabulary-parallel cross entropy: PyTorch's eager and compiled runs compute their own "
          "loss (model.compile_loss compiles it); leave model.kernels unset or fused");
    }
  }
  if (const ConfigNode* efficiency = reader.get("efficiency")) {
    model.efficiency = read_number_in(*efficiency, reader.path("efficiency"), kMinEfficiency, 1, false,
                                      "a fraction of peak in [1e-06, 1]");
  }
  if (const ConfigNode* step = reader.get("step_time")) {
    if (model.efficiency) {
      fail(*step, reader.path("step_time"), "fits the efficiency to a measurement: remove model.efficiency");
    }
    const SimTime measured = read_duration(*step, reader.path("step_time"));
    if (measured <= SimTime::zero() || measured > kMaxStepTime) {
      fail(*step, reader.path("step_time"),
           fmt::format("expected a measured iteration above 0 and at most 1 day, got '{}'", step->text));
    }
    model.step_time = located(measured, *step, reader.path("step_time"));
  }
  read_profile(reader, base_dir, model);
  read_chakra(reader, base_dir, model);
  read_collectives(reader, base_dir, model);
  return model;
}

}  // namespace syncsim::scenario_detail
