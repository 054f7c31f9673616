// syncsim-bench-nccl's GEMM shapes (validation/nccl/gemm_shapes.hpp), plain C++ tested on every machine, GPU or not.
//
// The default sweep against the closed forms the header states. Each Llama 3 model (hidden h, FFN f, heads q, KV
// heads g, head dim d = h / q, from the models' config.json) split over TP t gives four forward GEMMs per M tokens:
//
//   QKV (M, (q + 2 g) d / t, h)   out-proj (M, h, q d / t)   gate+up (M, 2 f / t, h)   down (M, h, f / t)
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "gemm_shapes.hpp"
#include "syncsim/core/input_error.hpp"

using syncsim::InputError;
using syncsim::cuda::GemmShape;

namespace {

bool same(const GemmShape& a, const GemmShape& b) {
  return a.m == b.m && a.n == b.n && a.k == b.k;
}

}  // namespace

TEST_CASE("the default GEMM shapes are Llama 3's forward GEMMs on one TP rank", "[gemm-shapes]") {
  struct Model {
    std::int64_t hidden, ffn, heads, kv_heads, tp;
  };
  const Model models[] = {{4096, 14336, 32, 8, 1}, {8192, 28672, 64, 8, 4}, {16384, 53248, 128, 8, 8}};
  std::vector<GemmShape> expected;
  for (const Model& model : models) {
    const std::int64_t d = model.hidden / model.heads;
    for (const std::int64_t m : {2048, 4096, 8192, 16384}) {
      expected.push_back({m, (model.heads + 2 * model.kv_heads) * d / model.tp, model.hidden});
      expected.push_back({m, model.hidden, model.heads * d / model.tp});
      expected.push_back({m, 2 * model.ffn / model.tp, model.hidden});
      expected.push_back({m, model.hidden, model.ffn / model.tp});
    }
  }
  const std::vector<GemmShape> shapes = syncsim::cuda::default_gemm_shapes();
  REQUIRE(shapes.size() == 48);
  REQUIRE(shapes.size() == expected.size());
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    INFO(i << ": " << syncsim::cuda::to_string(shapes[i]) << " expected " << syncsim::cuda::to_string(expected[i]));
    CHECK(same(shapes[i], expected[i]));
    // FP8 GEMMs want aligned operands: every default dimension is a multiple of 256.
    CHECK(shapes[i].n % 256 == 0);
    CHECK(shapes[i].k % 256 == 0);
  }
}

TEST_CASE("GEMM shapes parse as MxNxK, and bad entries name themselves", "[gemm-shapes]") {
  const auto parse = [](std::vector<std::string> entries) {
    return syncsim::cuda::parse_gemm_shapes(entries, "--gemm-shapes");
  };
  const std::vector<GemmShape> shapes = parse({"4096x6144x4096", "1x1048576x7"});
  REQUIRE(shapes.size() == 2);
  CHECK(same(shapes[0], {4096, 6144, 4096}));
  CHECK(same(shapes[1], {1, 1048576, 7}));
  CHECK(parse({"none"}).empty());
  for (const char* bad :
       {"0x1x1", "1x1", "1x1x1x1", "x1x1", "1x1x", "1.5x2x3", "1x1x1048577", "1x-2x3", "4kx2x3", "1X2X3", " 1x2x3"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse({bad}), InputError);
    CHECK_THROWS_WITH(parse({"8x8x8", bad}), Catch::Contains(std::string("'") + bad + "'"));
  }
  CHECK_THROWS_WITH(parse({"8x8x8", "none"}), Catch::Contains("'none' stands alone"));
  CHECK_THROWS_WITH(parse({"12x0x5"}), Catch::Contains("N is 0"));
}
