#include "syncsim/compute/compute_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "syncsim/compute/step_time_fit.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {
// A reduction reads two operands and writes one result: three bytes of memory traffic per byte reduced.
constexpr double kReductionTrafficPerByte = 3.0;

void require_batch(std::int64_t batch) {
  if (batch < 1) throw InputError(fmt::format("batch size must be positive, got {}", batch));
}

}  // namespace

double power_clock_factor(const GpuSpec& gpu, std::optional<double> power_limit_watts) {
  if (!power_limit_watts) return 1;
  const double limit = *power_limit_watts;
  if (!gpu.board_power_watts) {
    throw InputError(
        fmt::format("GPU '{}' has no board power in the catalog to cap (a power limit needs one)", gpu.name));
  }
  const double board = *gpu.board_power_watts;
  if (!(limit > 0) || limit > board) {
    throw InputError(fmt::format("power limit must be in (0, {:g}] W, the board power of GPU '{}', got {:g} W", board,
                                 gpu.name, limit));
  }
  // Dynamic power goes as f·V², and V rises with f: the clock as the cap's cube root.
  return std::cbrt(limit / board);
}

void check_scaled_layers(const ModelSpec& model, Precision precision) {
  if (!is_scaled(precision)) return;
  for (const Layer& layer : model.layers()) {
    if (layer.kind == LayerKind::gemm) return;
  }
  throw InputError(fmt::format(
      "model '{}' has no layer that {} runs in its scaled format: the recipes (Transformer Engine's) scale the linear "
      "layers of transformer blocks, and this model has none (train it in bf16, or mark its GEMM layers kind: gemm)",
      model.name(), to_string(precision)));
}

ComputeModel::ComputeModel(GpuSpec gpu, Precision precision, ComputeOptions options)
    : gpu_(std::move(gpu)),
      precision_(precision),
      options_(options),
      scaled_peak_flops_(gpu_.require_peak(precision) *
                         (is_scaled(precision) ? gpu_.scaled_gemm_ratio.value_or(1.0) : 1.0) *
                         power_clock_factor(gpu_, options_.power_limit_watts)),
      peak_flops_(gpu_.require_peak(companion_precision(precision)) *
                  power_clock_factor(gpu_, options_.power_limit_watts)),
      kernels_(gpu_, options_.kernels.value_or(KernelStyle::fused)) {
  if (!(efficiency() > 0 && efficiency() <= kMaxImpliedEfficiency)) {
    throw InputError(fmt::format("efficiency must be in (0, {}], got {}", kMaxImpliedEfficiency, efficiency()));
  }
  if (!(options_.backward_factor > 0) || !std::isfinite(options_.backward_factor)) {
    throw InputError(fmt::format("backward factor must be positive, got {}", options_.backward_factor));
  }
  if (options_.kernel_overhead < SimTime::zero()) throw InputError("kernel overhead must not be negative");
}

bool ComputeModel::runs_scaled(const Layer& layer) const {
  return is_scaled(precision_) && layer.kind == LayerKind::gemm;
}

bool ComputeModel::fused_projections() const {
  // Megatron's (Transformer Engine: the default recipe, or model.kernels: fused); PyTorch runs separate nn.Linear
  // modules (torchtitan's wq, wk, wv and w1, w3; torchao's Float8Linear), eager or compiled.
  return !options_.kernels || *options_.kernels == KernelStyle::fused;
}

bool ComputeModel::norm_casts(const Layer& layer) const {
  return layer.shape.cast_by_norm && fused_projections() && runs_scaled(layer);
}

bool ComputeModel::casts_shared_input(const Layer& layer) const {
  // A fused projection casts its shared input once; separate modules each cast their own.
  return layer.shape.shares_input && fused_projections();
}

Roofline ComputeModel::scaled_gemm_roofline(const Layer& layer, double batch) const {
  // A linear layer moves its input and output side by side: tokens x (cols + rows) elements per sample.
  const auto rows = static_cast<double>(layer.weight_rows);
  const auto cols = static_cast<double>(layer.weight_cols);
  const double moved = batch * static_cast<double>(layer.activation_elements_moved);
  const double input = rows + cols > 0 ? moved * cols / (rows + cols) : 0;
  const double output = moved - input;
  const double q = operand_bytes(precision_);
  const auto e = static_cast<double>(element_bytes(precision_));
  const double bandwidth = gpu_.memory_bandwidth.bytes_per_second * efficiency();
  const double bytes = q * (static_cast<double>(layer.weight_elements_read) + input) + e * output;
  const double flops = batch * static_cast<double>(layer.forward_flops);
  // The cast reads the 16-bit input and writes it quantized, as is and transposed (TE's fp8_cast_transpose_fused).
  const double quantize = casts_shared_input(layer) ? 0 : input * (e + 2 * q) / bandwidth;
  // LayerNormLinear: the norm wrote it quantized; backward reads it and writes its transpose (fp8_transpose).
  const bool in_norm = norm_casts(layer);
  return {.compute_seconds = flops / (scaled_peak_flops_ * efficiency()),
          .memory_seconds = bytes / bandwidth,
          .quantize_seconds = quantize,
          .cast_in_norm_seconds = in_norm ? quantize : 0,
          .transpose_seconds = in_norm ? input * 2 * q / bandwidth : 0};
}

Roofline ComputeModel::roofline(const Layer& layer, std::int64_t batch) const {
  require_batch(batch);
  const auto b = static_cast<double>(batch);
  if (runs_scaled(layer)) return scaled_gemm_roofline(layer, b);
  const double flops = b * static_cast<double>(layer.forward_flops);
  const auto e = static_cast<double>(element_bytes(precision_));
  double bytes =
      e * (static_cast<double>(layer.weight_elements_read) + b * static_cast<double>(layer.activation_elements_moved));
  // A norm that writes the next GEMM's quantized input (KernelShape::cast_by_norm) writes its bytes, not 16 bits.
  if (is_scaled(precision_) && fused_projections() && layer.shape.quantized_output_elements > 0) {
    bytes -= b * static_cast<double>(layer.shape.quantized_output_elements) * (e - operand_bytes(precision_));
  }
  return kernel_roofline(flops, bytes);
}

Roofline ComputeModel::kernel_roofline(double flops, double bytes) const {
  return {.compute_seconds = flops / (peak_flops_ * efficiency()),
          .memory_seconds = bytes / (gpu_.memory_bandwidth.bytes_per_second * efficiency())};
}

SimTime ComputeModel::time_of(const Roofline& r) const {
  return SimTime::from_seconds(std::max(r.compute_seconds, r.memory_seconds) + r.quantize_seconds) +
         options_.kernel_overhead;
}

SimTime ComputeModel::kernel_time(double flops, double bytes) const {
  return time_of(kernel_roofline(flops, bytes));
}

SimTime ComputeModel::streaming_time(double bytes, std::int64_t kernels) const {
  const double rate = options_.kernels && !options_.efficiency ? streaming_fraction() : efficiency();
  return SimTime::from_seconds(bytes / (gpu_.memory_bandwidth.bytes_per_second * rate)) +
         options_.kernel_overhead * kernels;
}

RankSplit layer_split(const Layer& layer, RankSplit split) {
  if (!split.sequence_parallel && layer.shape.sequence_region) split.tensor = 1;
  return split;
}

SimTime rank_share(SimTime whole, RankSplit split) {
  return SimTime::from_ps(whole.ps() / (split.tensor * split.context));
}

bool ComputeModel::shaped(const Layer& layer) const {
  if (!options_.kernels || options_.efficiency || layer.shape.tokens < 1) return false;
  switch (layer.kind) {
    case LayerKind::gemm:
    case LayerKind::gemm_kept:
      return kernels_.shapes_gemms() && layer.weight_rows > 0 && layer.weight_cols > 0 && layer.weight_matrices > 0;
    case LayerKind::attention:
      return layer.shape.head_dim > 0 && kernels_.has_attention_rate();
    case LayerKind::convolution:
      return false;
    case LayerKind::other:
    case LayerKind::embedding:
      return true;
  }
  return false;
}

SimTime ComputeModel::pass_time(const Layer& layer, std::int64_t batch, RankSplit whole_split, bool backward) const {
  require_batch(batch);
  const RankSplit split = layer_split(layer, whole_split);
  if (runs_megatron_loss(layer)) return rank_share(megatron_loss(layer, batch, backward), split);
  if (!shaped(layer)) {
    Roofline r = roofline(layer, batch);
    if (!backward) {
      r.quantize_seconds -= r.cast_in_norm_seconds;
      return rank_share(time_of(r), split);
    }
    return rank_share(time_of(r).scaled(options_.backward_factor) + SimTime::from_seconds(r.transpose_seconds), split);
  }
  const double factor = backward ? options_.backward_factor : 1;
  switch (layer.kind) {
    case LayerKind::gemm:
    case LayerKind::gemm_kept:
      return shaped_gemm(layer, batch, split, backward);
    case LayerKind::attention:
      return shaped_attention(layer, batch, split, backward);
    default:
      return shaped_streaming(layer, batch, split).scaled(factor);
  }
}

SimTime ComputeModel::forward(const Layer& layer, std::int64_t batch, RankSplit split) const {
  return pass_time(layer, batch, split, false);
}

SimTime ComputeModel::backward(const Layer& layer, std::int64_t batch, RankSplit split) const {
  const SimTime table = layer.shape.dense_table_gradient ? table_gradient(layer, split) : SimTime::zero();
  return pass_time(layer, batch, split, true) + table;
}

SimTime ComputeModel::forward(const ModelSpec& model, std::int64_t batch) const {
  SimTime total;
  for (const Layer& layer : model.layers()) total += forward(layer, batch);
  return total;
}

SimTime ComputeModel::backward(const ModelSpec& model, std::int64_t batch) const {
  SimTime total;
  for (const Layer& layer : model.layers()) total += backward(layer, batch);
  return total;
}

SimTime ComputeModel::optimizer_step(std::int64_t params, Optimizer optimizer) const {
  if (params < 0) throw InputError(fmt::format("parameter count must not be negative, got {}", params));
  // A scaled recipe writes the new weights' low-precision copies (as is and transposed) after the step.
  const double copies = is_scaled(precision_) ? 2 * operand_bytes(precision_) : 0;
  const double bytes = static_cast<double>(params) * (static_cast<double>(optimizer_step_bytes(optimizer)) + copies);
  return SimTime::from_seconds(bytes / (gpu_.memory_bandwidth.bytes_per_second * efficiency())) +
         options_.kernel_overhead;
}

Bandwidth ComputeModel::reduction_rate() const {
  return {gpu_.memory_bandwidth.bytes_per_second / kReductionTrafficPerByte};
}

}  // namespace syncsim
