// Gradient buckets as PyTorch DDP forms them: reverse layer order, a size cap, a small first bucket.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/training/bucket_plan.hpp"

using namespace syncsim;

namespace {

ModelSpec model_with_params(const std::vector<std::int64_t>& params) {
  std::vector<Layer> layers;
  for (std::size_t i = 0; i < params.size(); ++i) {
    std::string name = "l";  // appended, not "l" + to_string: GCC 12 warns falsely (-Wrestrict) on the latter
    name += std::to_string(i);
    layers.push_back({.name = std::move(name), .params = params[i], .forward_flops = 1});
  }
  return ModelSpec("test", std::move(layers));
}

std::vector<std::vector<std::size_t>> layer_groups(const BucketPlan& plan) {
  std::vector<std::vector<std::size_t>> groups;
  for (const GradientBucket& bucket : plan.buckets) groups.push_back(bucket.layers);
  return groups;
}

}  // namespace

TEST_CASE("gradient bytes are params times the gradient element size", "[buckets]") {
  const Layer layer{.name = "fc", .params = 1000, .forward_flops = 1};
  CHECK(gradient_bytes(layer, Precision::fp32) == Bytes{4000});
  CHECK(gradient_bytes(layer, Precision::tf32) == Bytes{4000});
  CHECK(gradient_bytes(layer, Precision::fp16) == Bytes{2000});
  CHECK(gradient_bytes(layer, Precision::bf16) == Bytes{2000});
}

TEST_CASE("buckets fill in reverse layer order under the cap, a layer over the cap stands alone", "[buckets]") {
  // fp32 gradient bytes per layer (forward order): 400, 1200, 200, 8000, 0 (no parameters), 800. Cap 1500, no
  // separate first cap. Reverse: {5} 800 (adding layer 3 would make 8800); {3} 8000 alone (over the cap);
  // {2, 1} 200 + 1200 = 1400 (adding layer 0 would make 1800); {0} 400.
  const ModelSpec model = model_with_params({100, 300, 50, 2000, 0, 200});
  const BucketPlan plan = make_buckets(model, Bytes{1500}, Precision::fp32, Bytes{1500});
  REQUIRE(plan.buckets.size() == 4);
  CHECK(layer_groups(plan) == std::vector<std::vector<std::size_t>>{{5}, {3}, {2, 1}, {0}});
  CHECK(plan.buckets[0].bytes == Bytes{800});
  CHECK(plan.buckets[1].bytes == Bytes{8000});
  CHECK(plan.buckets[2].bytes == Bytes{1400});
  CHECK(plan.buckets[3].bytes == Bytes{400});
  CHECK(plan.buckets[0].ready_after_layer == 5);
  CHECK(plan.buckets[1].ready_after_layer == 3);
  CHECK(plan.buckets[2].ready_after_layer == 1);
  CHECK(plan.buckets[3].ready_after_layer == 0);
  CHECK(plan.total_bytes() == Bytes{10600});

  // fp16 halves every layer: {5} 400; {3} 4000 alone; {2, 1, 0} 100 + 600 + 200 = 900.
  const BucketPlan half = make_buckets(model, Bytes{1500}, Precision::fp16, Bytes{1500});
  CHECK(layer_groups(half) == std::vector<std::vector<std::size_t>>{{5}, {3}, {2, 1, 0}});
  CHECK(half.total_bytes() == Bytes{5300});
}

TEST_CASE("the first bucket has its own, smaller cap", "[buckets]") {
  // Six layers of 400 fp32 bytes. Cap 1200, first cap 400: {5}, then {4, 3, 2}, {1, 0}. Without the first cap:
  // {5, 4, 3}, {2, 1, 0}. A first cap above the cap is clamped to the cap.
  const ModelSpec model = model_with_params({100, 100, 100, 100, 100, 100});
  CHECK(layer_groups(make_buckets(model, Bytes{1200}, Precision::fp32, Bytes{400})) ==
        std::vector<std::vector<std::size_t>>{{5}, {4, 3, 2}, {1, 0}});
  CHECK(layer_groups(make_buckets(model, Bytes{1200}, Precision::fp32, Bytes{1200})) ==
        std::vector<std::vector<std::size_t>>{{5, 4, 3}, {2, 1, 0}});
  CHECK(layer_groups(make_buckets(model, Bytes{1200}, Precision::fp32, Bytes{1 << 20})) ==
        std::vector<std::vector<std::size_t>>{{5, 4, 3}, {2, 1, 0}});
  // The default first cap is torch's 1 MiB.
  CHECK(kDdpDefaultFirstBucketCap == Bytes{1 << 20});
  CHECK(kDdpDefaultBucketCap == Bytes{25'000'000});  // the scenario default, 25 MB (not torch's 25 MiB)
}

TEST_CASE("bucket plans of catalog models conserve bytes and keep reverse order", "[buckets]") {
  for (const std::string_view name : model_names()) {
    const ModelSpec model = find_model(name);
    for (const Precision precision : {Precision::fp32, Precision::fp16}) {
      for (const Bytes cap : {Bytes{1 << 20}, kDdpDefaultBucketCap, Bytes{100LL << 20}}) {
        INFO(std::string(name) << " cap " << cap.value);
        const BucketPlan plan = make_buckets(model, cap, precision);
        CHECK(plan.total_bytes() == Bytes{model.params() * element_bytes(precision)});
        // Every layer with parameters appears exactly once, in descending forward index.
        std::vector<std::size_t> order;
        for (std::size_t b = 0; b < plan.buckets.size(); ++b) {
          const GradientBucket& bucket = plan.buckets[b];
          REQUIRE_FALSE(bucket.layers.empty());
          CHECK(bucket.ready_after_layer == bucket.layers.back());
          const Bytes limit = b == 0 ? std::min(cap, kDdpDefaultFirstBucketCap) : cap;
          if (bucket.layers.size() > 1) CHECK(bucket.bytes <= limit);
          Bytes sum;
          for (const std::size_t layer : bucket.layers) {
            sum += gradient_bytes(model.layers()[layer], precision);
            order.push_back(layer);
          }
          CHECK(sum == bucket.bytes);
        }
        std::vector<std::size_t> expected;
        for (std::size_t i = model.layers().size(); i-- > 0;) {
          if (model.layers()[i].params > 0) expected.push_back(i);
        }
        CHECK(order == expected);
      }
    }
  }
}

TEST_CASE("bucket caps below one byte are rejected", "[buckets]") {
  const ModelSpec model = model_with_params({10});
  CHECK_THROWS_AS(make_buckets(model, Bytes{0}, Precision::fp32), InputError);
  CHECK_THROWS_AS(make_buckets(model, Bytes{100}, Precision::fp32, Bytes{0}), InputError);
}

TEST_CASE("FP8 all-gather bytes: a block's linear at 1 byte an element and its FP32 scale, the rest bf16",
          "[buckets]") {
  // Llama 3 8B's q projection: 4,096 x 4,096 = 16,777,216 parameters, one weight matrix: 16,777,220 bytes in FP8
  // against 33,554,432 in bf16. The token table (an embedding, not a Float8Linear) and the LM head (torchtitan leaves
  // `output` unconverted) stay bf16, and so does everything without the flag.
  const ModelSpec model = find_model("llama3-8b");
  bool found = false;
  for (const Layer& l : model.layers()) {
    if (l.name == "layers.0.self_attn.q_proj") {
      found = true;
      CHECK(weight_gather_bytes(l, Precision::fp8, true) == Bytes{16'777'216 + 4});
      CHECK(weight_gather_bytes(l, Precision::fp8, false) == Bytes{2 * 16'777'216});
    }
    if (l.kind != LayerKind::gemm)
      CHECK(weight_gather_bytes(l, Precision::fp8, true) == gradient_bytes(l, Precision::fp8));
  }
  CHECK(found);
}
