#include "cnn_builder.hpp"

#include "syncsim/core/input_error.hpp"

namespace syncsim::compute_detail {

namespace {
// FLOPs per element for the memory-bound layers. They hardly matter (these kernels are limited by bandwidth),
// but counting them keeps totals honest: training-mode batch norm computes mean and variance, then scales and
// shifts (about 5 per element); ReLU and add one; a max pool one comparison per window element.
constexpr std::int64_t kBatchNormFlops = 5;
constexpr std::int64_t kCnnElementwiseFlops = 1;
// Training-mode batch norm reads its input twice (statistics, then normalize) and writes once.
constexpr std::int64_t kBatchNormElementsMoved = 3;

std::int64_t conv_out(std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t padding) {
  return (in + 2 * padding - kernel) / stride + 1;
}
}  // namespace

std::int64_t CnnBuilder::save_input() {
  if (state_.saved) return 0;
  state_.saved = true;
  return state_.shape.elements();
}

void CnnBuilder::conv(const std::string& name, std::int64_t out_channels, std::int64_t kernel, std::int64_t stride,
                      std::int64_t padding, bool bias) {
  conv(name, out_channels, {kernel, kernel}, stride, {padding, padding}, bias, 1);
}

void CnnBuilder::conv(const std::string& name, std::int64_t out_channels, Extent kernel, std::int64_t stride,
                      Extent padding, bool bias, std::int64_t groups) {
  const FeatureMap in = state_.shape;
  SYNCSIM_INVARIANT(groups >= 1 && in.channels % groups == 0 && out_channels % groups == 0,
                    "convolution groups must divide its channels");
  const FeatureMap out{out_channels, conv_out(in.height, kernel.height, stride, padding.height),
                       conv_out(in.width, kernel.width, stride, padding.width)};
  SYNCSIM_INVARIANT(out.height > 0 && out.width > 0, "convolution output is empty");
  const std::int64_t weights = kernel.height * kernel.width * (in.channels / groups) * out_channels;
  Layer layer{.name = name};
  layer.params = weights + (bias ? out_channels : 0);
  layer.weight_rows = out_channels;
  layer.weight_cols = weights / out_channels;
  layer.weight_matrices = 1;
  layer.kind = LayerKind::convolution;
  layer.forward_flops = 2 * weights * out.height * out.width + (bias ? out.elements() : 0);
  layer.weight_elements_read = layer.params;
  layer.activation_elements_moved = in.elements() + out.elements();
  layer.saved_elements = save_input();
  layers_.push_back(std::move(layer));
  state_ = {out, false};
}

void CnnBuilder::batch_norm(const std::string& name) {
  const std::int64_t n = state_.shape.elements();
  Layer layer{.name = name};
  layer.params = 2 * state_.shape.channels;
  layer.forward_flops = kBatchNormFlops * n;
  layer.weight_elements_read = layer.params;
  layer.activation_elements_moved = kBatchNormElementsMoved * n;
  layer.saved_elements = save_input();
  layers_.push_back(std::move(layer));
  state_.saved = false;
}

void CnnBuilder::relu(const std::string& name) {
  // In place; backward needs the output, which is the tensor the next layer keeps — so ReLU keeps it itself and
  // the consumer finds it already saved.
  const std::int64_t n = state_.shape.elements();
  layers_.push_back({.name = name,
                     .forward_flops = kCnnElementwiseFlops * n,
                     .activation_elements_moved = 2 * n,
                     .saved_elements = n});
  state_.saved = true;
}

void CnnBuilder::max_pool(const std::string& name, std::int64_t kernel, std::int64_t stride, std::int64_t padding) {
  const FeatureMap in = state_.shape;
  const FeatureMap out{in.channels, conv_out(in.height, kernel, stride, padding),
                       conv_out(in.width, kernel, stride, padding)};
  Layer layer{.name = name};
  layer.forward_flops = kernel * kernel * out.elements();
  layer.activation_elements_moved = in.elements() + out.elements();
  layer.saved_elements = save_input();
  layers_.push_back(std::move(layer));
  state_ = {out, false};
}

void CnnBuilder::avg_pool(const std::string& name, std::int64_t kernel, std::int64_t stride, std::int64_t padding) {
  // Backward spreads each output's gradient over its window: it needs the shapes only.
  const FeatureMap in = state_.shape;
  const FeatureMap out{in.channels, conv_out(in.height, kernel, stride, padding),
                       conv_out(in.width, kernel, stride, padding)};
  SYNCSIM_INVARIANT(out.height > 0 && out.width > 0, "pooling output is empty");
  layers_.push_back({.name = name,
                     .forward_flops = kernel * kernel * out.elements(),
                     .activation_elements_moved = in.elements() + out.elements()});
  state_ = {out, false};
}

void CnnBuilder::adaptive_avg_pool(const std::string& name, std::int64_t out_size) {
  // Backward spreads the gradient evenly: it needs the shapes only.
  const FeatureMap in = state_.shape;
  const FeatureMap out{in.channels, out_size, out_size};
  layers_.push_back(
      {.name = name, .forward_flops = in.elements(), .activation_elements_moved = in.elements() + out.elements()});
  state_ = {out, false};
}

void CnnBuilder::add(const std::string& name, const CnnState& other) {
  SYNCSIM_INVARIANT(other.shape.elements() == state_.shape.elements(), "residual shapes differ");
  const std::int64_t n = state_.shape.elements();
  layers_.push_back({.name = name, .forward_flops = kCnnElementwiseFlops * n, .activation_elements_moved = 3 * n});
  state_.saved = false;
}

void CnnBuilder::concat(const std::string& name, const std::vector<CnnState>& parts) {
  SYNCSIM_INVARIANT(!parts.empty(), "concatenation of nothing");
  FeatureMap out{0, parts.front().shape.height, parts.front().shape.width};
  for (const CnnState& part : parts) {
    SYNCSIM_INVARIANT(part.shape.height == out.height && part.shape.width == out.width,
                      "concatenated branches differ in height or width");
    out.channels += part.shape.channels;
  }
  // A copy of every branch into the joined tensor; backward slices the gradient back, saving nothing.
  layers_.push_back({.name = name, .activation_elements_moved = 2 * out.elements()});
  state_ = {out, false};
}

void CnnBuilder::linear(const std::string& name, std::int64_t out_features) {
  const std::int64_t in = state_.shape.elements();
  Layer layer{.name = name};
  layer.params = in * out_features + out_features;
  layer.weight_rows = out_features;
  layer.weight_cols = in;
  layer.weight_matrices = 1;
  layer.kind = LayerKind::gemm_kept;
  layer.forward_flops = 2 * in * out_features + out_features;
  layer.weight_elements_read = layer.params;
  layer.activation_elements_moved = in + out_features;
  layer.saved_elements = save_input();
  layers_.push_back(std::move(layer));
  state_ = {{out_features, 1, 1}, false};
}

void CnnBuilder::dropout(const std::string& name) {
  const std::int64_t n = state_.shape.elements();
  layers_.push_back({.name = name,
                     .forward_flops = kCnnElementwiseFlops * n,
                     .activation_elements_moved = 2 * n,
                     .saved_mask_bytes = n});
  state_.saved = false;
}

}  // namespace syncsim::compute_detail
