#include "gradient_compressor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "syncsim/core/rng.hpp"

namespace syncsim::convergence {

namespace {

constexpr std::uint64_t kQueryStream = 0xC0'5C0D;  // PowerSGD's initial Q
constexpr double kFp16Max = 65504;
constexpr int kFp16Significand = 11;   // bits, the leading one included
constexpr int kFp16MinExponent = -24;  // the smallest subnormal is 2^-24
constexpr int kBf16Significand = 8;
constexpr int kBf16MinExponent = -133;

// x rounded to a binary format of `significand` bits whose smallest step is 2^min_exponent.
double round_to_format(double x, int significand, int min_exponent) {
  if (!std::isfinite(x) || x == 0) return x;
  int exponent = 0;
  std::frexp(x, &exponent);  // x = m 2^exponent, 0.5 <= |m| < 1
  const double step = std::ldexp(1.0, std::max(exponent - significand, min_exponent));
  return std::nearbyint(x / step) * step;  // the default rounding mode: to nearest, ties to even
}

// Modified Gram-Schmidt on the columns of a rows x r row-major matrix, as PyTorch's _orthogonalize_gram_schmidt
// (a zero column stays zero instead of dividing by zero).
void orthogonalize(std::vector<double>& m, std::size_t rows, std::size_t r) {
  for (std::size_t j = 0; j < r; ++j) {
    double norm = 0;
    for (std::size_t i = 0; i < rows; ++i) norm += m[i * r + j] * m[i * r + j];
    norm = std::sqrt(norm);
    if (norm == 0) continue;
    for (std::size_t i = 0; i < rows; ++i) m[i * r + j] /= norm;
    for (std::size_t k = j + 1; k < r; ++k) {
      double dot = 0;
      for (std::size_t i = 0; i < rows; ++i) dot += m[i * r + j] * m[i * r + k];
      for (std::size_t i = 0; i < rows; ++i) m[i * r + k] -= dot * m[i * r + j];
    }
  }
}

}  // namespace

double round_to_fp16(double x) {
  const double rounded = round_to_format(x, kFp16Significand, kFp16MinExponent);
  if (std::abs(rounded) > kFp16Max) return std::copysign(std::numeric_limits<double>::infinity(), rounded);
  return rounded;
}

double round_to_bf16(double x) {
  return round_to_format(x, kBf16Significand, kBf16MinExponent);
}

GradientCompressor::GradientCompressor(const GradientCompression& compression, std::vector<ParameterTensor> tensors,
                                       std::size_t parameters, std::int64_t workers, std::uint64_t seed)
    : compression_(compression),
      tensors_(std::move(tensors)),
      parameters_(parameters),
      errors_(static_cast<std::size_t>(workers)) {
  if (compression_.kind != CompressionKind::powersgd) return;
  Rng rng = Rng(seed).fork(kQueryStream);
  for (const ParameterTensor& t : tensors_) {
    const std::int64_t r = t.matrix
                               ? powersgd_rank(static_cast<std::int64_t>(t.rows), static_cast<std::int64_t>(t.cols),
                                               compression_.rank, compression_.min_compression_rate)
                               : 0;
    ranks_.push_back(r);
    std::vector<double> q(t.cols * static_cast<std::size_t>(r));
    for (double& v : q) v = rng.normal();
    orthogonalize(q, t.cols, static_cast<std::size_t>(r));
    q_.push_back(std::move(q));
  }
}

void GradientCompressor::average(const std::vector<std::vector<double>>& gradients,
                                 std::span<const std::int64_t> members, std::vector<double>& out) {
  out.assign(parameters_, 0.0);
  switch (compression_.kind) {
    case CompressionKind::none:
      for (const auto& g : gradients) {
        for (std::size_t i = 0; i < parameters_; ++i) out[i] += g[i];
      }
      for (double& v : out) v /= static_cast<double>(gradients.size());
      return;
    case CompressionKind::fp16:
    case CompressionKind::bf16:
      half_precision(gradients, out);
      return;
    case CompressionKind::powersgd: {
      const std::vector<std::vector<double>> inputs = with_errors(gradients, members);
      powersgd(inputs, out);
      // Every worker received the same approximation: its error is what it held beyond it.
      if (compression_.error_feedback)
        keep_errors(
            inputs, members, [&](std::size_t) -> const auto& { return out; });
      return;
    }
    case CompressionKind::topk: {
      const std::vector<std::vector<double>> inputs = with_errors(gradients, members);
      const std::vector<std::vector<double>> sent = topk(inputs, out);
      if (compression_.error_feedback)
        keep_errors(
            inputs, members, [&](std::size_t m) -> const auto& { return sent[m]; });
      return;
    }
  }
}

void GradientCompressor::half_precision(const std::vector<std::vector<double>>& gradients,
                                        std::vector<double>& out) const {
  const auto round = compression_.kind == CompressionKind::fp16 ? round_to_fp16 : round_to_bf16;
  const auto n = static_cast<double>(gradients.size());
  for (const auto& g : gradients) {
    for (std::size_t i = 0; i < parameters_; ++i) out[i] += round(g[i] / n);
  }
  for (double& v : out) v = round(v);
}

std::vector<std::vector<double>> GradientCompressor::with_errors(const std::vector<std::vector<double>>& gradients,
                                                                 std::span<const std::int64_t> members) {
  std::vector<std::vector<double>> inputs = gradients;
  if (!compression_.error_feedback) return inputs;
  for (std::size_t m = 0; m < inputs.size(); ++m) {
    const std::vector<double>& error = errors_[static_cast<std::size_t>(members[m])];
    if (error.empty()) continue;
    for (std::size_t i = 0; i < parameters_; ++i) inputs[m][i] += error[i];
  }
  return inputs;
}

void GradientCompressor::powersgd(const std::vector<std::vector<double>>& inputs, std::vector<double>& out) {
  const auto n = static_cast<double>(inputs.size());
  for (std::size_t t = 0; t < tensors_.size(); ++t) {
    const ParameterTensor& tensor = tensors_[t];
    const auto r = static_cast<std::size_t>(ranks_[t]);
    const std::size_t rows = tensor.rows;
    const std::size_t cols = tensor.cols;
    if (r == 0) {
      for (const auto& input : inputs) {
        for (std::size_t i = 0; i < rows * cols; ++i) out[tensor.offset + i] += input[tensor.offset + i] / n;
      }
      continue;
    }
    std::vector<double>& q = q_[t];
    std::vector<double> p(rows * r, 0.0);
    for (const auto& input : inputs) {  // P = mean M_w Q
      const double* m = input.data() + tensor.offset;
      for (std::size_t i = 0; i < rows; ++i) {
        for (std::size_t k = 0; k < cols; ++k) {
          for (std::size_t j = 0; j < r; ++j) p[i * r + j] += m[i * cols + k] * q[k * r + j] / n;
        }
      }
    }
    orthogonalize(p, rows, r);
    std::fill(q.begin(), q.end(), 0.0);
    for (const auto& input : inputs) {  // Q = mean M_w^T P
      const double* m = input.data() + tensor.offset;
      for (std::size_t i = 0; i < rows; ++i) {
        for (std::size_t k = 0; k < cols; ++k) {
          for (std::size_t j = 0; j < r; ++j) q[k * r + j] += m[i * cols + k] * p[i * r + j] / n;
        }
      }
    }
    for (std::size_t i = 0; i < rows; ++i) {  // the update: P Q^T
      for (std::size_t k = 0; k < cols; ++k) {
        double v = 0;
        for (std::size_t j = 0; j < r; ++j) v += p[i * r + j] * q[k * r + j];
        out[tensor.offset + i * cols + k] = v;
      }
    }
  }
}

std::vector<std::vector<double>> GradientCompressor::topk(const std::vector<std::vector<double>>& inputs,
                                                          std::vector<double>& out) const {
  const auto k = static_cast<std::size_t>(topk_entries(static_cast<std::int64_t>(parameters_), compression_.ratio));
  const auto n = static_cast<double>(inputs.size());
  std::vector<std::size_t> order(parameters_);
  std::vector<std::vector<double>> sent(inputs.size(), std::vector<double>(parameters_, 0.0));
  for (std::size_t m = 0; m < inputs.size(); ++m) {
    const std::vector<double>& input = inputs[m];
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k - 1), order.end(),
                     [&](std::size_t a, std::size_t b) {
                       const double x = std::abs(input[a]);
                       const double y = std::abs(input[b]);
                       return x != y ? x > y : a < b;
                     });
    for (std::size_t i = 0; i < k; ++i) {
      sent[m][order[i]] = input[order[i]];
      out[order[i]] += input[order[i]] / n;
    }
  }
  return sent;
}

}  // namespace syncsim::convergence
