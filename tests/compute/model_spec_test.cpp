#include <catch2/catch.hpp>

#include <functional>
#include <limits>

#include "syncsim/compute/model_spec.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;

namespace {
Layer fc(std::string name) {
  // 1024 -> 1024 with bias on one token: 1,049,600 parameters, 2·1024² + 1024 FLOPs.
  return {.name = std::move(name),
          .params = 1'049'600,
          .forward_flops = 2'098'176,
          .weight_elements_read = 1'049'600,
          .activation_elements_moved = 2048,
          .saved_elements = 1024,
          .saved_mask_bytes = 16};
}

std::string error_key(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.key();
  }
  return "(no error)";
}
}  // namespace

TEST_CASE("an inline model sums its layers", "[model_spec]") {
  const ModelSpec m("two-fc", {fc("fc1"), fc("fc2")});
  CHECK(m.name() == "two-fc");
  REQUIRE(m.layers().size() == 2);
  CHECK(m.params() == 2'099'200);
  CHECK(m.forward_flops() == 4'196'352);
  CHECK(m.saved_elements() == 2048);
  CHECK(m.saved_mask_bytes() == 32);
  // A lookup table: parameters but no FLOPs, nothing read per batch; still valid.
  CHECK_NOTHROW(ModelSpec("emb", {{.name = "table", .params = 1000, .activation_elements_moved = 20}}));
}

TEST_CASE("inline models are validated, naming the layer field", "[model_spec]") {
  CHECK_THROWS_WITH(ModelSpec("", {fc("a")}), Catch::Contains("needs a name"));
  CHECK_THROWS_WITH(ModelSpec("m", {}), Catch::Contains("has no layers"));
  CHECK(error_key([] { ModelSpec("m", {fc("a"), fc("a")}); }) == "layers[1].name");
  CHECK(error_key([] { ModelSpec("m", {fc("a"), fc("")}); }) == "layers[1].name");
  Layer negative = fc("b");
  negative.params = -1;
  CHECK(error_key([&] { ModelSpec("m", {fc("a"), negative}); }) == "layers[1].params");
  Layer mask = fc("c");
  mask.saved_mask_bytes = -5;
  CHECK_THROWS_WITH(ModelSpec("m", {mask}), Catch::Contains("saved_mask_bytes must not be negative"));
  CHECK_THROWS_WITH(ModelSpec("m", {{.name = "idle", .params = 10}}), Catch::Contains("does no work"));
  Layer huge = fc("h");
  huge.params = std::numeric_limits<std::int64_t>::max();
  CHECK_THROWS_WITH(ModelSpec("m", {huge, fc("small")}), Catch::Contains("overflows"));
}
