#include <catch2/catch.hpp>

#include "syncsim/compute/optimizer.hpp"
#include "syncsim/compute/precision.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;

TEST_CASE("precision names parse and print, ignoring case", "[precision]") {
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16}) {
    CHECK(parse_precision(to_string(p)) == p);
  }
  CHECK(parse_precision("BF16") == Precision::bf16);
  CHECK_THROWS_AS(parse_precision("fp8"), InputError);
  CHECK_THROWS_WITH(parse_precision("fp8"), Catch::Contains("expected fp32, tf32, fp16 or bf16"));
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
