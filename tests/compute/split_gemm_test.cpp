// A GEMM run in pieces beside a tensor-parallel overlap's chunks (ComputeModel::split_gemm_extra): each piece given
// the tile that is best for it alone, the pieces' tiles pooled into shared waves (they run on streams of their own),
// against hand-worked tile counts on an H100 (132 SMs, kernel_model.hpp).
#include <catch2/catch.hpp>

#include "syncsim/compute/compute_model.hpp"
#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/compute/kernel_model.hpp"
#include "syncsim/compute/model_catalog.hpp"

using namespace syncsim;

namespace {
const Layer& layer_named(const ModelSpec& model, const std::string& name) {
  for (const Layer& l : model.layers()) {
    if (l.name == name) return l;
  }
  FAIL("no layer " << name);
  throw;
}

// Llama 3 70B at TP 4 and CP 2, micro-batch 1: each rank's GEMMs see 8192 / 2 = 4,096 tokens.
const RankSplit kTp4Cp2{.tensor = 4, .context = 2};
}  // namespace

TEST_CASE("a GEMM in pieces costs the tile its pieces are given, their waves pooled", "[kernel_model]") {
  const ModelSpec llama = find_model("llama3-70b");
  const GpuSpec h100 = find_gpu("H100-SXM-80GB");
  const ComputeModel roofline(h100, Precision::bf16);  // the constant 0.7: Megatron's fused projections
  // The attention projection's input gradient (4096 x 2048 x 8192), whole: 16 x 16 = 256 tiles of 256x128 in 2 waves
  // (256/264). A ring exchange's piece of 1024 rows alone runs best on 128x128 tiles (8 x 16 = 128, one wave,
  // 0.75 x 128/132) where 256x128 would fill half a wave (64 tiles); the four pieces' 512 tiles pool into 4 waves
  // (512/528), but at 128x128's three quarters of the operand reuse: (256/264) / (0.75 x 512/528) = 4/3.
  const Layer& o = layer_named(llama, "layers.0.self_attn.o_proj");
  const double o_product = 2.0 * 4096 * 8192 * 2048 / (989.4e12 * kDefaultEfficiency);
  CHECK(roofline.split_gemm_extra(o, 1, kTp4Cp2, 4, true).seconds() == Approx(o_product / 3).epsilon(1e-6));
  // One rank's K projection, in linear_qkv (Q 8192, K and V 1024 each): 4096 x 2560 x 8192. Whole, 16 x 20 = 320 tiles
  // of 256x128 in 3 waves; a piece of 1024 rows alone, 80 of them, 80/132 of a wave, but the four pieces run on
  // streams of their own and their 320 tiles fill the same 3 waves: nothing lost.
  const Layer& k = layer_named(llama, "layers.0.self_attn.k_proj");
  CHECK(roofline.split_gemm_extra(k, 1, kTp4Cp2, 4, false) == SimTime::zero());
  // Micro-batch 2 in 8 pieces: the same 1024-row pieces, 8 x 80 = 640 tiles in 5 waves, as the whole's 32 x 20.
  CHECK(roofline.split_gemm_extra(k, 2, kTp4Cp2, 8, false) == SimTime::zero());
  // One piece is the whole; a GPU without an SM count has no tiles to count.
  CHECK(roofline.split_gemm_extra(o, 1, kTp4Cp2, 1, true) == SimTime::zero());
  GpuSpec unknown = h100;
  unknown.multiprocessors.reset();
  CHECK(ComputeModel(unknown, Precision::bf16).split_gemm_extra(o, 1, kTp4Cp2, 4, true) == SimTime::zero());
  // Not a GEMM: nothing to split.
  CHECK(roofline.split_gemm_extra(layer_named(llama, "layers.0.input_layernorm"), 1, kTp4Cp2, 4, false) ==
        SimTime::zero());
}

TEST_CASE("the pieces' factors pool their tiles into shared waves", "[kernel_model]") {
  const KernelModel model(find_gpu("H100-SXM-80GB"), KernelStyle::fused);
  // 1024 x 2048 x 8192 alone: 128 tiles of 128x128, one wave (128/132), three quarters of the reuse.
  const TileChoice alone = model.shape_factors({.m = 1024, .n = 2048, .k = 8192}, 1);
  CHECK(alone.rows == 128);
  CHECK(alone.cols == 128);
  const double u_k = 8192.0 / (8192 + 128);
  CHECK(alone.efficiency == Approx(0.75 * 128 / 132 * u_k));
  // Four of them: 512 tiles in 4 waves (512/528).
  const TileChoice four = model.pieces_factors({.m = 1024, .n = 2048, .k = 8192}, 1, 4);
  CHECK(four.tiles == 512);
  CHECK(four.efficiency == Approx(0.75 * 512 / 528 * u_k));
  // One piece is shape_factors.
  CHECK(model.pieces_factors({.m = 1024, .n = 2048, .k = 8192}, 1, 1).efficiency == Approx(alone.efficiency));
}
