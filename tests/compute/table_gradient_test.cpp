// An embedding table's backward as PyTorch runs it (ComputeModel::table_gradient): the whole table's gradient
// zero-filled and added into the gradient buffer, every micro-batch whatever its tokens, against hand-worked byte
// counts on the toy GPU (100 GB/s at 0.7, 5 us a kernel).
#include <catch2/catch.hpp>

#include "syncsim/compute/compute_model.hpp"
#include "syncsim/compute/model_catalog.hpp"
#include "toy_gpu.hpp"

using namespace syncsim;

namespace {
// 1,000 rows of 100: 100,000 elements; 10 tokens a sample look up their rows.
Layer table(bool vocabulary) {
  return {.name = "embed_tokens",
          .params = 100'000,
          .activation_elements_moved = 2'000,
          .weight_rows = 1'000,
          .weight_cols = 100,
          .weight_matrices = 1,
          .kind = LayerKind::embedding,
          .shape = {.tokens = 10, .dense_table_gradient = true, .vocabulary_parallel = vocabulary}};
}

double us_at_efficiency(double bytes) {
  return bytes / (100e9 * 0.7) * 1e6;
}
}  // namespace

TEST_CASE("an embedding's backward writes the whole table's gradient, once a micro-batch", "[compute]") {
  const Layer vocabulary = table(true);
  Layer plain = vocabulary;
  plain.shape.dense_table_gradient = false;
  SECTION("16-bit buffer: zero fill 2, read 2, buffer read and written 2 + 2 bytes an element, two kernels") {
    const ComputeModel model(toy_gpu::toy(), Precision::fp16);
    CHECK(model.forward(vocabulary, 1) == model.forward(plain, 1));
    const double extra = us_at_efficiency(8 * 100'000.0) + 10;
    CHECK((model.backward(vocabulary, 1) - model.backward(plain, 1)).us() == Approx(extra));
    // Whatever the batch: the table's size, not the tokens'.
    CHECK((model.backward(vocabulary, 8) - model.backward(plain, 8)).us() == Approx(extra));
    // The vocabulary's rows split over the tensor group; a position table is every rank's whole.
    CHECK((model.backward(vocabulary, 1, {.tensor = 4}) - model.backward(plain, 1, {.tensor = 4})).us() ==
          Approx(us_at_efficiency(8 * 25'000.0) + 10));
    const Layer positions = table(false);
    CHECK((model.backward(positions, 1, {.tensor = 4}) - model.backward(plain, 1, {.tensor = 4})).us() ==
          Approx(extra));
    // Context parallelism splits the tokens, not the table.
    CHECK((model.backward(vocabulary, 1, {.context = 2}) - model.backward(plain, 1, {.context = 2})).us() ==
          Approx(extra));
  }
  SECTION("Megatron's FP32 main grads: the buffer read and written at 4 bytes") {
    const ComputeModel model(toy_gpu::toy(), Precision::fp16, {.fp32_gradient_buffer = true});
    CHECK((model.backward(vocabulary, 1) - model.backward(plain, 1)).us() ==
          Approx(us_at_efficiency(12 * 100'000.0) + 10));
  }
}

TEST_CASE("the catalog's decoders mark their token table, and only it, vocabulary-parallel", "[compute]") {
  const ModelSpec gpt2 = find_model("gpt2");
  for (const Layer& layer : gpt2.layers()) {
    if (layer.kind != LayerKind::embedding) continue;
    INFO(layer.name);
    CHECK(layer.shape.dense_table_gradient);
    CHECK(layer.shape.vocabulary_parallel == (layer.name == "wte"));
  }
  // A recommendation model's tables are not a transformer's: their updates are the rows the batch touched.
  const ModelSpec dlrm = find_model("dlrm-mlperf");
  for (const Layer& layer : dlrm.layers()) {
    CHECK_FALSE(layer.shape.dense_table_gradient);
  }
}
