#include "syncsim/compute/model_spec.hpp"

#include <fmt/format.h>

#include <limits>
#include <set>
#include <string_view>
#include <utility>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {
// Totals are exact integers; a sum past int64 is bad input (absurd counts), not something to wrap around.
std::int64_t checked_add(std::int64_t total, std::int64_t value, std::string_view what, const std::string& model) {
  if (value > std::numeric_limits<std::int64_t>::max() - total) {
    throw InputError(fmt::format("model '{}': total {} overflows", model, what));
  }
  return total + value;
}

void check_structure(const TransformerStructure& t, std::size_t layers, const std::string& model) {
  if (t.hidden < 1 || t.sequence < 1 || t.kv_width < 1 || t.blocks.empty()) {
    throw InputError(fmt::format("model '{}': a transformer structure needs widths, a sequence and blocks", model));
  }
  std::size_t next = 0;
  for (const auto& [first, last] : t.blocks) {
    if (first < next || last <= first || last > layers) {
      throw InputError(
          fmt::format("model '{}': transformer block [{}, {}) is empty, overlaps the one before or "
                      "runs past the {} layers",
                      model, first, last, layers));
    }
    next = last;
  }
}

}  // namespace

ModelSpec::ModelSpec(std::string name, std::vector<Layer> layers, std::optional<TransformerStructure> transformer)
    : name_(std::move(name)), layers_(std::move(layers)), transformer_(std::move(transformer)) {
  if (name_.empty()) throw InputError("a model definition needs a name", std::nullopt, "name");
  if (layers_.empty()) throw InputError(fmt::format("model '{}' has no layers", name_), std::nullopt, "layers");
  std::set<std::string, std::less<>> seen;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    const Layer& layer = layers_[i];
    const std::string key = fmt::format("layers[{}]", i);
    if (layer.name.empty()) throw InputError("a layer needs a name", std::nullopt, key + ".name");
    if (!seen.insert(layer.name).second) {
      throw InputError(fmt::format("model '{}' has two layers named '{}'", name_, layer.name), std::nullopt,
                       key + ".name");
    }
    const std::pair<std::string_view, std::int64_t> fields[] = {
        {"params", layer.params},
        {"forward_flops", layer.forward_flops},
        {"weight_elements_read", layer.weight_elements_read},
        {"activation_elements_moved", layer.activation_elements_moved},
        {"saved_elements", layer.saved_elements},
        {"saved_mask_bytes", layer.saved_mask_bytes},
        {"weight_matrices", layer.weight_matrices}};
    for (const auto& [field, value] : fields) {
      if (value < 0) {
        throw InputError(fmt::format("layer '{}': {} must not be negative, got {}", layer.name, field, value),
                         std::nullopt, fmt::format("{}.{}", key, field));
      }
    }
    if (layer.forward_flops == 0 && layer.weight_elements_read == 0 && layer.activation_elements_moved == 0) {
      throw InputError(fmt::format("layer '{}' does no work: give it FLOPs or elements moved", layer.name),
                       std::nullopt, key);
    }
    // The weight matrices are part of the parameters (divisions, so that no product can overflow).
    const bool shaped = layer.weight_matrices > 0;
    if (shaped && (layer.weight_rows <= 0 || layer.weight_cols <= 0 ||
                   layer.weight_rows > layer.params / layer.weight_cols / layer.weight_matrices)) {
      throw InputError(fmt::format("layer '{}': {} weight matrices of {} x {} hold more than its {} params", layer.name,
                                   layer.weight_matrices, layer.weight_rows, layer.weight_cols, layer.params),
                       std::nullopt, key + ".weight_shape");
    }
    params_ = checked_add(params_, layer.params, "params", name_);
    forward_flops_ = checked_add(forward_flops_, layer.forward_flops, "forward FLOPs", name_);
    saved_elements_ = checked_add(saved_elements_, layer.saved_elements, "saved elements", name_);
    saved_mask_bytes_ = checked_add(saved_mask_bytes_, layer.saved_mask_bytes, "saved mask bytes", name_);
  }
  if (transformer_) check_structure(*transformer_, layers_.size(), name_);
}

}  // namespace syncsim