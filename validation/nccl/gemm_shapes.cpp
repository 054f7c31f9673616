#include "gemm_shapes.hpp"

#include <fmt/format.h>

#include <charconv>
#include <string_view>
#include <utility>

#include "syncsim/core/input_error.hpp"

namespace syncsim::cuda {

namespace {

struct ModelGemms {
  std::int64_t n_k[4][2];  // (N, K) of QKV, out-proj, gate+up, down on one TP rank (gemm_shapes.hpp)
};

constexpr std::int64_t kTokens[] = {2048, 4096, 8192, 16384};
constexpr ModelGemms kLlama3[] = {
    {{{6144, 4096}, {4096, 4096}, {28672, 4096}, {4096, 14336}}},     // 8B, TP 1
    {{{2560, 8192}, {8192, 2048}, {14336, 8192}, {8192, 7168}}},      // 70B, TP 4
    {{{2304, 16384}, {16384, 2048}, {13312, 16384}, {16384, 6656}}},  // 405B, TP 8
};

// One dimension of "MxNxK": the text before the next 'x' (or the end), a positive integer.
std::int64_t dimension(std::string_view entry, std::string_view text, const char* name, const std::string& flag) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    throw InputError(fmt::format("'{}': {} is '{}', not an integer; expected MxNxK, three positive integers such as "
                                 "4096x6144x4096",
                                 entry, name, text),
                     SourceLocation{flag});
  }
  if (value < 1 || value > kMaxGemmDimension) {
    throw InputError(fmt::format("'{}': {} is {}; each of M, N and K must be between 1 and {}", entry, name, value,
                                 kMaxGemmDimension),
                     SourceLocation{flag});
  }
  return value;
}

GemmShape parse_shape(std::string_view entry, const std::string& flag) {
  const std::size_t first = entry.find('x');
  const std::size_t second = first == std::string_view::npos ? first : entry.find('x', first + 1);
  if (second == std::string_view::npos || entry.find('x', second + 1) != std::string_view::npos) {
    throw InputError(
        fmt::format("'{}': expected MxNxK, three positive integers joined by 'x' such as 4096x6144x4096", entry),
        SourceLocation{flag});
  }
  return {dimension(entry, entry.substr(0, first), "M", flag),
          dimension(entry, entry.substr(first + 1, second - first - 1), "N", flag),
          dimension(entry, entry.substr(second + 1), "K", flag)};
}

}  // namespace

std::vector<GemmShape> default_gemm_shapes() {
  std::vector<GemmShape> shapes;
  for (const ModelGemms& model : kLlama3) {
    for (const std::int64_t m : kTokens) {
      for (const auto& [n, k] : model.n_k) shapes.push_back({m, n, k});
    }
  }
  return shapes;
}

std::vector<GemmShape> parse_gemm_shapes(const std::vector<std::string>& entries, const std::string& flag) {
  if (entries.size() == 1 && entries.front() == "none") return {};
  if (entries.empty()) throw InputError("expected MxNxK,... or none", SourceLocation{flag});
  std::vector<GemmShape> shapes;
  for (const std::string& entry : entries) {
    if (entry == "none") throw InputError("'none' stands alone: no shapes, or a list of MxNxK", SourceLocation{flag});
    shapes.push_back(parse_shape(entry, flag));
  }
  return shapes;
}

GemmResult timed_gemm(std::string precision, std::string layout, const GemmShape& shape, double seconds) {
  const double flops = 2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) * static_cast<double>(shape.k);
  return {std::move(precision), std::move(layout), shape, seconds * 1e6, flops / seconds * 1e-12};
}

std::string to_string(const GemmShape& shape) {
  return fmt::format("{}x{}x{}", shape.m, shape.n, shape.k);
}

}  // namespace syncsim::cuda
