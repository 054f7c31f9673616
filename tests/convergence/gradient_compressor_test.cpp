// The compression hooks replayed on the proxy (gradient_compressor.hpp): 16-bit rounding by hand, the cases where
// PowerSGD and top-k are exact, error feedback's conservation, and what compression costs the replay in updates.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "gradient_compressor.hpp"
#include "syncsim/convergence/convergence_replay.hpp"
#include "syncsim/core/rng.hpp"

namespace syncsim::convergence {
namespace {

// A 6 x 4 matrix and a vector of 3, the shapes the compressor sees.
const std::vector<ParameterTensor> kTensors{{.offset = 0, .rows = 6, .cols = 4, .matrix = true},
                                            {.offset = 24, .rows = 3}};
constexpr std::size_t kParameters = 27;

std::vector<std::vector<double>> random_gradients(std::size_t workers, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<std::vector<double>> g(workers, std::vector<double>(kParameters));
  for (auto& v : g) {
    for (double& x : v) x = rng.normal();
  }
  return g;
}

std::vector<double> plain_mean(const std::vector<std::vector<double>>& g) {
  std::vector<double> mean(kParameters, 0.0);
  for (const auto& v : g) {
    for (std::size_t i = 0; i < kParameters; ++i) mean[i] += v[i] / static_cast<double>(g.size());
  }
  return mean;
}

const std::vector<std::int64_t> kMembers{0, 1, 2};

}  // namespace

TEST_CASE("16-bit rounding: nearest, ties to even, fp16's range", "[compression]") {
  CHECK(round_to_fp16(1.0 / 3) == 0.333251953125);        // 0x3555
  CHECK(round_to_bf16(1.0 / 3) == 0.333984375);           // 0x3eab
  CHECK(round_to_fp16(1 + std::ldexp(1.0, -11)) == 1.0);  // a tie goes to the even significand
  CHECK(round_to_fp16(1 + 3 * std::ldexp(1.0, -11)) == 1 + std::ldexp(1.0, -9));
  CHECK(round_to_fp16(65504) == 65504);
  CHECK(std::isinf(round_to_fp16(65520)));          // past the largest finite half, to infinity
  CHECK(round_to_fp16(std::ldexp(1.0, -25)) == 0);  // half the smallest subnormal: a tie, to zero
  CHECK(round_to_fp16(std::ldexp(3.0, -26)) == std::ldexp(1.0, -24));
}

TEST_CASE("powersgd at full rank and top-k at ratio 1 deliver the exact mean", "[compression]") {
  const auto g = random_gradients(3, 11);
  const std::vector<double> mean = plain_mean(g);
  std::vector<double> out;
  SECTION("powersgd, rank 4 of a 6 x 4 matrix: P spans M's columns") {
    GradientCompressor c({.kind = CompressionKind::powersgd, .rank = 4, .min_compression_rate = 0.01}, kTensors,
                         kParameters, 3, 5);
    c.average(g, kMembers, out);
  }
  SECTION("topk, every entry") {
    GradientCompressor c({.kind = CompressionKind::topk, .ratio = 1}, kTensors, kParameters, 3, 5);
    c.average(g, kMembers, out);
  }
  REQUIRE(out.size() == kParameters);
  for (std::size_t i = 0; i < kParameters; ++i) CHECK(out[i] == Approx(mean[i]).margin(1e-12));
}

TEST_CASE("powersgd below full rank: vectors exact, the matrix a rank-1 approximation", "[compression]") {
  const auto g = random_gradients(3, 12);
  const std::vector<double> mean = plain_mean(g);
  GradientCompressor c({.kind = CompressionKind::powersgd, .rank = 1, .min_compression_rate = 1}, kTensors, kParameters,
                       3, 5);
  std::vector<double> out;
  c.average(g, kMembers, out);
  for (std::size_t i = 24; i < kParameters; ++i) CHECK(out[i] == Approx(mean[i]).margin(1e-12));
  // Rank 1: every 2 x 2 minor of the update vanishes.
  for (std::size_t i = 1; i < 6; ++i) {
    for (std::size_t k = 1; k < 4; ++k) CHECK(out[0] * out[i * 4 + k] - out[k] * out[i * 4] == Approx(0).margin(1e-12));
  }
}

TEST_CASE("error feedback conserves the gradient: sum of updates + mean error = sum of mean gradients",
          "[compression]") {
  for (const CompressionKind kind : {CompressionKind::powersgd, CompressionKind::topk}) {
    CAPTURE(static_cast<int>(kind));
    GradientCompressor c({.kind = kind, .rank = 1, .min_compression_rate = 1, .ratio = 0.1}, kTensors, kParameters, 3,
                         5);
    std::vector<double> applied(kParameters, 0.0);
    std::vector<double> produced(kParameters, 0.0);
    std::vector<double> out;
    for (std::uint64_t step = 0; step < 20; ++step) {
      const auto g = random_gradients(3, 100 + step);
      const std::vector<double> mean = plain_mean(g);
      c.average(g, kMembers, out);
      for (std::size_t i = 0; i < kParameters; ++i) {
        applied[i] += out[i];
        produced[i] += mean[i];
      }
    }
    // Each worker's error is what it has produced and not yet sent: applied + mean error = produced.
    double gap = 0;
    for (std::size_t i = 0; i < kParameters; ++i) {
      double held = 0;
      for (const std::int64_t w : kMembers) held += c.error(w)[i] / 3;
      CHECK(applied[i] + held == Approx(produced[i]).margin(1e-9));
      gap += std::abs(held);
    }
    CHECK(gap > 1e-3);  // and compression did hold something back
  }
}

}  // namespace syncsim::convergence
