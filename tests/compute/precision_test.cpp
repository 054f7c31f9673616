#include <catch2/catch.hpp>

#include "syncsim/compute/optimizer.hpp"
#include "syncsim/compute/precision.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;

TEST_CASE("precision names parse and print, ignoring case", "[precision]") {
  for (Precision p : kAllPrecisions) CHECK(parse_precision(to_string(p)) == p);
  CHECK(parse_precision("BF16") == Precision::bf16);
  CHECK(parse_precision("FP8") == Precision::fp8);
  CHECK(parse_precision("NVFP4") == Precision::nvfp4);
  CHECK_THROWS_AS(parse_precision("fp6"), InputError);
  CHECK_THROWS_WITH(parse_precision("int8"),
                    Catch::Contains("expected one of fp32, tf32, fp16, bf16, fp8, mxfp8, nvfp4, mxfp4"));
}

TEST_CASE("scaled precisions keep bf16 beside their GEMMs, with FP32 master weights", "[precision]") {
  for (Precision p : {Precision::fp8, Precision::mxfp8, Precision::nvfp4, Precision::mxfp4}) {
    INFO(to_string(p));
    CHECK(is_scaled(p));
    CHECK(is_mixed(p));
    CHECK(element_bytes(p) == 2);
    CHECK(companion_precision(p) == Precision::bf16);
    CHECK(optimizer_state_bytes(Optimizer::adam, p) == 12);
  }
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16}) {
    CHECK_FALSE(is_scaled(p));
    CHECK(companion_precision(p) == p);
    CHECK(operand_bytes(p) == static_cast<double>(element_bytes(p)));
  }
}

TEST_CASE("a GEMM operand's bytes count its format and its block scales", "[precision]") {
  // FP8 with one scale per tensor: 1 byte. OCP MX: one E8M0 byte per 32 elements. NVFP4: 4 bits and one E4M3
  // byte per 16 elements.
  CHECK(operand_bytes(Precision::fp8) == 1.0);
  CHECK(operand_bytes(Precision::mxfp8) == 1.0 + 1.0 / 32);
  CHECK(operand_bytes(Precision::nvfp4) == 0.5 + 1.0 / 16);
  CHECK(operand_bytes(Precision::mxfp4) == 0.5 + 1.0 / 32);
}

TEST_CASE("element size: 4 bytes for fp32 and tf32, 2 for the mixed precisions", "[precision]") {
  CHECK(element_bytes(Precision::fp32) == 4);
  CHECK(element_bytes(Precision::tf32) == 4);
  CHECK(element_bytes(Precision::fp16) == 2);
  CHECK(element_bytes(Precision::bf16) == 2);
  CHECK_FALSE(is_mixed(Precision::tf32));
  CHECK(is_mixed(Precision::fp16));
}

TEST_CASE("optimizer names parse, and AdamW is Adam", "[optimizer]") {
  for (Optimizer o : {Optimizer::sgd, Optimizer::momentum, Optimizer::adam}) {
    CHECK(parse_optimizer(to_string(o)) == o);
  }
  CHECK(parse_optimizer("AdamW") == Optimizer::adam);
  CHECK_THROWS_WITH(parse_optimizer("lamb"), Catch::Contains("expected sgd, momentum or adam"));
}

TEST_CASE("optimizer state and step traffic per parameter follow ZeRO's accounting", "[optimizer]") {
  // fp32: moments only. Mixed: FP32 master weights (4) plus the moments.
  CHECK(optimizer_state_bytes(Optimizer::sgd, Precision::fp32) == 0);
  CHECK(optimizer_state_bytes(Optimizer::momentum, Precision::tf32) == 4);
  CHECK(optimizer_state_bytes(Optimizer::adam, Precision::fp32) == 8);
  CHECK(optimizer_state_bytes(Optimizer::sgd, Precision::fp16) == 4);
  CHECK(optimizer_state_bytes(Optimizer::momentum, Precision::bf16) == 8);
  CHECK(optimizer_state_bytes(Optimizer::adam, Precision::fp16) == 12);  // ZeRO's K = 12
  CHECK(optimizer_step_bytes(Optimizer::sgd) == 12);
  CHECK(optimizer_step_bytes(Optimizer::momentum) == 20);
  CHECK(optimizer_step_bytes(Optimizer::adam) == 28);
}
