#include "syncsim/compute/torch_import.hpp"

#include <fmt/format.h>

#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <regex>

#include "cnn_builder.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/json_input.hpp"

namespace syncsim {

using compute_detail::CnnBuilder;
using compute_detail::CnnState;
using compute_detail::Extent;
using compute_detail::FeatureMap;
using nlohmann::json;

namespace {

std::string shape_text(const FeatureMap& shape) {
  if (shape.height == 1 && shape.width == 1) return fmt::format("[{}]", shape.channels);
  return fmt::format("[{}, {}, {}]", shape.channels, shape.height, shape.width);
}

// The traced graph, node by node, through one CnnBuilder; each tensor id keeps the state its producer left.
class GraphImporter {
 public:
  GraphImporter(const json& graph, std::string where) : graph_(graph), where_(std::move(where)) {}

  ImportedModel run() {
    ImportedModel model;
    model.name = text(graph_, "name");
    model.source = text(graph_, "source");
    model.torch_version = text(graph_, "torch");
    const json& input = field(graph_, "input");
    if (!input.is_array() || input.size() != 3) fail_graph("input", "expected a per-sample input shape C x H x W");
    for (const json& d : input) model.input.push_back(whole(d, "input"));
    tensors_[text(graph_, "input_tensor")] = CnnState{{model.input[0], model.input[1], model.input[2]}, false};
    for (const json& node : field(graph_, "nodes")) apply(node);
    std::int64_t total = 0;
    for (const Layer& layer : builder_.layers()) total += layer.params;
    const std::int64_t traced = whole(field(graph_, "parameters"), "parameters");
    if (total != traced) {
      fail_graph("parameters", fmt::format("the layers hold {} parameters but the module has {}: a parameter used "
                                           "outside its module, or a module called more than once, is not counted",
                                           total, traced));
    }
    model.layers = builder_.take();
    return model;
  }

 private:
  [[noreturn]] void fail_graph(const std::string& key, const std::string& message) const {
    throw InputError(message, SourceLocation{where_, 0, 0}, key);
  }
  [[noreturn]] void fail(const json& node, const std::string& message) const {
    const auto name = node.find("name");
    const std::string label = name != node.end() && name->is_string() ? name->get<std::string>() : "?";
    const auto output = node.find("output");
    const std::string id = output != node.end() && output->is_string() ? output->get<std::string>() : "?";
    throw InputError(fmt::format("{} (node {})", message, id), SourceLocation{where_, 0, 0}, label);
  }

  const json& field(const json& object, const char* key) const {
    if (!object.is_object() || !object.contains(key)) fail_graph(key, "missing from the traced graph");
    return object.at(key);
  }
  std::string text(const json& object, const char* key) const {
    const json& value = field(object, key);
    if (!value.is_string()) fail_graph(key, fmt::format("expected text, got {}", json_value_text(value)));
    return value.get<std::string>();
  }
  std::int64_t whole(const json& value, const std::string& key) const {
    if (!value.is_number_integer() || value.get<std::int64_t>() < 0 ||
        (value.is_number_unsigned() &&
         value.get<std::uint64_t>() > std::uint64_t{std::numeric_limits<std::int64_t>::max()})) {
      fail_graph(key, fmt::format("expected a whole number, got {}", json_value_text(value)));
    }
    return value.get<std::int64_t>();
  }
  std::int64_t count(const json& node, const char* key) const { return whole(field(node, key), key); }
  // A [height, width] attribute (kernel, stride, padding).
  Extent extent(const json& node, const char* key) const {
    const json& value = field(node, key);
    if (!value.is_array() || value.size() != 2) fail(node, fmt::format("{}: expected [height, width]", key));
    return {whole(value[0], key), whole(value[1], key)};
  }
  // The catalog's pools and strides are square: a rectangular one would be counted as something else.
  std::int64_t square(const json& node, const char* key) const {
    const Extent e = extent(node, key);
    if (e.height != e.width)
      fail(node, fmt::format("a {} of {}x{} is not supported (only square)", key, e.height, e.width));
    return e.height;
  }
  bool flag(const json& node, const char* key) const {
    const json& value = field(node, key);
    if (!value.is_boolean()) fail(node, fmt::format("{}: expected true or false", key));
    return value.get<bool>();
  }

  CnnState tensor(const json& node, const json& id) const {
    const auto it = id.is_string() ? tensors_.find(id.get<std::string>()) : tensors_.end();
    if (it == tensors_.end())
      fail(node, fmt::format("reads tensor {}, which no earlier node made", json_value_text(id)));
    return it->second;
  }
  FeatureMap traced_shape(const json& node) const {
    const json& shape = field(node, "shape");
    if (!shape.is_array() || (shape.size() != 1 && shape.size() != 3)) {
      fail(node, fmt::format("its per-sample output {} is neither C nor C x H x W", json_value_text(shape)));
    }
    if (shape.size() == 1) return {whole(shape[0], "shape"), 1, 1};
    return {whole(shape[0], "shape"), whole(shape[1], "shape"), whole(shape[2], "shape")};
  }

  // The window must fit (padding included), or the builder's formula would give an empty output.
  void require_window_fits(const json& node, const FeatureMap& in, Extent kernel, Extent padding) const {
    if (in.height + 2 * padding.height < kernel.height || in.width + 2 * padding.width < kernel.width) {
      fail(node, fmt::format("a {}x{} window does not fit its input {}", kernel.height, kernel.width, shape_text(in)));
    }
  }

  void conv(const json& node, const CnnState& in) {
    const Extent kernel = extent(node, "kernel");
    const Extent padding = extent(node, "padding");
    const std::int64_t stride = square(node, "stride");
    const Extent dilation = extent(node, "dilation");
    const std::int64_t groups = count(node, "groups");
    const std::int64_t out = count(node, "out_channels");
    if (dilation.height != 1 || dilation.width != 1) {
      fail(node, fmt::format("a dilated convolution ({}x{}) is not supported: the catalog counts none", dilation.height,
                             dilation.width));
    }
    if (groups < 1 || out < 1 || stride < 1 || in.shape.channels % groups != 0 || out % groups != 0) {
      fail(node,
           fmt::format("{} groups do not divide its {} input and {} output channels", groups, in.shape.channels, out));
    }
    require_window_fits(node, in.shape, kernel, padding);
    builder_.conv(label(node), out, kernel, stride, padding, flag(node, "bias"), groups);
  }

  void pool(const json& node, const std::string& kind, const CnnState& in) {
    const std::int64_t kernel = square(node, "kernel");
    const std::int64_t stride = square(node, "stride");
    const std::int64_t padding = square(node, "padding");
    if (kernel < 1 || stride < 1) fail(node, "a pool needs a kernel and a stride of at least 1");
    require_window_fits(node, in.shape, {kernel, kernel}, {padding, padding});
    if (kind == "max_pool") builder_.max_pool(label(node), kernel, stride, padding);
    if (kind == "avg_pool") builder_.avg_pool(label(node), kernel, stride, padding);
  }

  void add(const json& node, const json& inputs) {
    if (inputs.size() != 2) fail(node, "an add of anything but two tensors is not supported");
    const CnnState other = tensor(node, inputs[1]);
    if (other.shape.channels != builder_.state().shape.channels ||
        other.shape.height != builder_.state().shape.height || other.shape.width != builder_.state().shape.width) {
      fail(node, fmt::format("adds {} to {}: broadcasting is not supported", shape_text(other.shape),
                             shape_text(builder_.state().shape)));
    }
    builder_.add(label(node), other);
  }

  void concat(const json& node, const json& inputs) {
    std::vector<CnnState> parts;
    for (const json& id : inputs) {
      parts.push_back(tensor(node, id));
      if (parts.back().shape.height != parts.front().shape.height ||
          parts.back().shape.width != parts.front().shape.width) {
        fail(node, "joins tensors of different heights or widths: only joining along the channels is supported");
      }
    }
    builder_.concat(label(node), parts);
  }

  void linear(const json& node, const CnnState& in) {
    if (!flag(node, "bias")) fail(node, "a linear layer without bias is not supported (the catalog's has one)");
    if (in.shape.height != 1 || in.shape.width != 1) {
      fail(node, fmt::format("a linear layer on a {} input: flatten it first", shape_text(in.shape)));
    }
    builder_.linear(label(node), count(node, "out_features"));
  }

  void adaptive_pool(const json& node) {
    const std::int64_t out = square(node, "out");
    if (out < 1 || out > builder_.state().shape.height || out > builder_.state().shape.width) {
      fail(node, fmt::format("an adaptive pool to {}x{} from {} is not supported", out, out,
                             shape_text(builder_.state().shape)));
    }
    builder_.adaptive_avg_pool(label(node), out);
  }

  // A view: no kernel, the same elements in another shape, kept or not as they were.
  void reshape(const json& node, const CnnState& in) {
    const FeatureMap shape = traced_shape(node);
    if (shape.elements() != in.shape.elements()) fail(node, "a reshape that changes the element count");
    builder_.set_state({shape, in.saved});
  }

  std::string label(const json& node) const { return text(node, "name"); }

  void apply(const json& node) {
    const std::string kind = text(node, "kind");
    const json& inputs = field(node, "inputs");
    const std::string output = text(node, "output");
    if (!inputs.is_array() || inputs.empty()) fail(node, "an op on no tensor is not supported");
    const CnnState in = tensor(node, inputs[0]);
    if (kind == "alias") {
      tensors_[output] = in;
      return;
    }
    builder_.set_state(in);
    const std::size_t before = builder_.layers().size();
    if (kind == "conv")
      conv(node, in);
    else if (kind == "batch_norm")
      builder_.batch_norm(label(node));
    else if (kind == "relu")
      builder_.relu(label(node));
    else if (kind == "max_pool" || kind == "avg_pool")
      pool(node, kind, in);
    else if (kind == "adaptive_avg_pool")
      adaptive_pool(node);
    else if (kind == "add")
      add(node, inputs);
    else if (kind == "concat")
      concat(node, inputs);
    else if (kind == "linear")
      linear(node, in);
    else if (kind == "dropout")
      builder_.dropout(label(node));
    else if (kind == "reshape")
      reshape(node, in);
    else
      fail(node, fmt::format("the op kind '{}' is not supported", kind));
    check(node, before);
    // The kinds whose layer keeps its input for backward (CnnBuilder's save_input): the tensor is kept now, for
    // every later reader of it too.
    if (kind == "conv" || kind == "batch_norm" || kind == "max_pool" || kind == "linear") {
      tensors_[inputs[0].get<std::string>()].saved = true;
    }
    tensors_[output] = builder_.state();
  }

  // The layer just made against the trace: its parameters and its output's shape.
  void check(const json& node, std::size_t before) const {
    const std::int64_t params = count(node, "params");
    const std::int64_t counted = builder_.layers().size() > before ? builder_.layers().back().params : 0;
    if (counted != params) {
      fail(node, fmt::format("the module has {} parameters, the catalog's rule counts {}", params, counted));
    }
    const FeatureMap traced = traced_shape(node);
    const FeatureMap built = builder_.state().shape;
    if (traced.channels != built.channels || traced.height != built.height || traced.width != built.width) {
      fail(node, fmt::format("torch gives an output of {}, the catalog's rule {}{}", shape_text(traced),
                             shape_text(built), node.value("ceil_mode", false) ? " (ceil_mode is not supported)" : ""));
    }
  }

  const json& graph_;
  std::string where_;
  CnnBuilder builder_{FeatureMap{}};
  std::map<std::string, CnnState, std::less<>> tensors_;
};

// A layer name as YAML reads it back as the same text: plain where that is safe, JSON-quoted (which YAML's
// double-quoted style reads) elsewhere.
std::string yaml_text(const std::string& text) {
  static const std::regex plain("[A-Za-z_][A-Za-z0-9_.\\-]*");
  static const std::regex reserved("(?:true|false|null|yes|no|on|off|y|n)", std::regex::icase);
  if (std::regex_match(text, plain) && !std::regex_match(text, reserved)) return text;
  return json(text).dump();
}

}  // namespace

ImportedModel import_torch_graph(std::string_view text, const std::string& where) {
  check_json_nesting(text, where);
  json graph = json::parse(text, nullptr, false);
  if (graph.is_discarded() || !graph.is_object()) {
    throw InputError("the tracing script printed something other than one JSON object", SourceLocation{where, 0, 0});
  }
  if (const auto error = graph.find("error"); error != graph.end()) {
    throw InputError(error->is_string() ? error->get<std::string>() : json_value_text(*error),
                     SourceLocation{where, 0, 0});
  }
  return GraphImporter(graph, where).run();
}

void write_layers_file(const ImportedModel& model, std::ostream& out) {
  out << "# syncsim layers file: " << model.source << " traced by torch " << model.torch_version
      << " (syncsim import-model).\n# Counts per sample, by the catalog's rules (docs/import.md); a scenario reads it "
         "as model.layers: FILE.\n";
  out << "name: " << yaml_text(model.name) << "\nsource: " << json(model.source).dump() << "\ninput: [";
  for (std::size_t i = 0; i < model.input.size(); ++i) out << (i ? ", " : "") << model.input[i];
  out << "]\nlayers:\n";
  for (const Layer& layer : model.layers) {
    out << "  - {name: " << yaml_text(layer.name) << ", params: " << layer.params;
    const auto optional = [&](const char* key, std::int64_t value) {
      if (value != 0) out << ", " << key << ": " << value;
    };
    optional("forward_flops", layer.forward_flops);
    if (layer.weight_elements_read != layer.params) out << ", weight_elements_read: " << layer.weight_elements_read;
    optional("activation_elements_moved", layer.activation_elements_moved);
    optional("saved_elements", layer.saved_elements);
    optional("saved_mask_bytes", layer.saved_mask_bytes);
    if (layer.weight_matrices == 1) out << ", weight_shape: [" << layer.weight_rows << ", " << layer.weight_cols << "]";
    out << "}\n";
  }
}

}  // namespace syncsim
