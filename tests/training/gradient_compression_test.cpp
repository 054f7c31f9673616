// Gradient compression's buckets (gradient_compression.hpp) against hand counts, and the DDP and synchronous
// engines with compressed buckets against their closed forms.
#include <catch2/catch.hpp>

#include "hand_worked_setup.hpp"
#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/training/gradient_compression.hpp"
#include "syncsim/training/synchronous_run.hpp"

using namespace syncsim;
using test::ms;

namespace {

Layer matrix_layer(std::string name, std::int64_t rows, std::int64_t cols, bool bias) {
  return {.name = std::move(name),
          .params = rows * cols + (bias ? rows : 0),
          .forward_flops = 2 * rows * cols,
          .weight_elements_read = rows * cols,
          .weight_rows = rows,
          .weight_cols = cols,
          .weight_matrices = 1};
}

// Three layers: a 1024 x 256 linear with bias, a norm of 256 scales (a vector), a 16 x 16 linear without bias.
ModelSpec three_layers() {
  Layer norm{.name = "norm", .params = 256, .activation_elements_moved = 256};
  return ModelSpec("three", {matrix_layer("fc1", 1024, 256, true), norm, matrix_layer("fc2", 16, 16, false)});
}

GradientBucket whole(const ModelSpec& model, std::int64_t element_bytes) {
  GradientBucket b;
  b.bytes = Bytes{model.params() * element_bytes};
  for (std::size_t i = model.layers().size(); i-- > 0;) b.layers.push_back(i);
  b.ready_after_layer = 0;
  return b;
}

ComputeModel a100() {
  return ComputeModel(find_gpu("A100-SXM4-80GB"), Precision::fp32);
}

}  // namespace

TEST_CASE("powersgd_rank: compressed when (rows + cols) r x rate < rows x cols, r clipped to the shape",
          "[compression]") {
  CHECK(powersgd_rank(4096, 25088, 1, 2) == 1);
  CHECK(powersgd_rank(64, 64, 4, 2) == 4);     // 128 x 4 x 2 = 1024 < 4096
  CHECK(powersgd_rank(16, 16, 4, 2) == 0);     // 32 x 4 x 2 = 256, not below 256
  CHECK(powersgd_rank(16, 16, 3, 2) == 3);     // 192 < 256
  CHECK(powersgd_rank(1000, 3, 8, 0.1) == 3);  // r' = min(8, 1000, 3)
  CHECK(powersgd_rank(0, 10, 1, 2) == 0);
}

TEST_CASE("powersgd_split: P and Q elements by hand, vectors and small matrices uncompressed", "[compression]") {
  const ModelSpec model = three_layers();
  const GradientBucket b = whole(model, 4);
  // rank 4: fc1 (1024 x 256) compresses with P 1024 x 4 and Q 256 x 4; fc2 (16 x 16) does not; the bias (1024)
  // and the norm (256) are vectors.
  const PowerSgdSplit split = powersgd_split(model, b, 4, 2);
  CHECK(split.compressed_matrices == 1);
  CHECK(split.p_elements == 4096);
  CHECK(split.q_elements == 1024);
  CHECK(split.compressed_elements == 1024 * 256);
  CHECK(split.uncompressed_elements == 1024 + 256 + 256);
  CHECK(split.uncompressed_elements + split.compressed_elements == model.params());
}

TEST_CASE("bucket_syncs: the bytes each kind puts on the wire", "[compression]") {
  const ModelSpec model = three_layers();
  const ComputeModel compute = a100();
  const std::int64_t n = model.params();
  BucketPlan plan;
  plan.buckets = {whole(model, 4)};

  SECTION("none: one AllReduce of the bucket") {
    const auto s = bucket_syncs(model, plan, 4, {}, compute, 8);
    REQUIRE(s.size() == 1);
    CHECK(s[0].steps.size() == 1);
    CHECK(s[0].wire_bytes() == Bytes{4 * n});
    CHECK(s[0].encode == SimTime::zero());
    CHECK_THAT(s[0].bus_bytes(8), Catch::Matchers::WithinRel(2.0 * 7 / 8 * 4 * static_cast<double>(n), 1e-12));
  }
  SECTION("fp16 halves fp32 gradients and changes nothing on 16-bit ones") {
    const GradientCompression fp16{.kind = CompressionKind::fp16};
    const auto s = bucket_syncs(model, plan, 4, fp16, compute, 8);
    CHECK(s[0].wire_bytes() == Bytes{2 * n});
    CHECK(s[0].encode > SimTime::zero());
    CHECK(s[0].compute_on_stream() > SimTime::zero());
    BucketPlan half;
    half.buckets = {whole(model, 2)};
    const auto same = bucket_syncs(model, half, 2, fp16, compute, 8);
    CHECK(same[0].steps.size() == 1);
    CHECK(same[0].wire_bytes() == Bytes{2 * n});
    CHECK(same[0].encode == SimTime::zero());
  }
  SECTION("powersgd: uncompressed, then P, then Q, each an AllReduce") {
    const GradientCompression p{.kind = CompressionKind::powersgd, .rank = 4};
    const auto s = bucket_syncs(model, plan, 4, p, compute, 8);
    std::vector<std::int64_t> sizes;
    for (const SyncStep& step : s[0].steps) {
      if (step.kind == SyncStep::Kind::collective) {
        CHECK(step.op == CollectiveOp::allreduce);
        sizes.push_back(step.bytes.value);
      }
    }
    CHECK(sizes == std::vector<std::int64_t>{4 * (1024 + 256 + 256), 4 * 4096, 4 * 1024});
  }
  SECTION("topk: an AllGather of d k (values + int32 indices), (d - 1) k 8 bus bytes per rank") {
    const GradientCompression t{.kind = CompressionKind::topk, .ratio = 0.01};
    const std::int64_t k = (n + 99) / 100;  // ceil(0.01 n)
    CHECK(topk_entries(n, 0.01) == k);
    const auto s = bucket_syncs(model, plan, 4, t, compute, 16);
    CHECK(s[0].wire_bytes() == Bytes{16 * k * 8});
    CHECK(s[0].steps.front().op == CollectiveOp::all_gather);
    CHECK_THAT(s[0].bus_bytes(16), Catch::Matchers::WithinRel(15.0 * static_cast<double>(k) * 8, 1e-12));
    // The AllReduce's 2 (d - 1)/d G stays near 2G; the gather grows with d.
    const auto wide = bucket_syncs(model, plan, 4, t, compute, 256);
    CHECK(wide[0].bus_bytes(256) > 16 * s[0].bus_bytes(16));
  }
  SECTION("error feedback costs kernels") {
    GradientCompression p{.kind = CompressionKind::powersgd, .rank = 4};
    const SimTime with = bucket_syncs(model, plan, 4, p, compute, 8)[0].encode;
    p.error_feedback = false;
    CHECK(bucket_syncs(model, plan, 4, p, compute, 8)[0].encode < with);
  }
}

TEST_CASE("catalog models carry their weight matrices, within their parameters", "[compression]") {
  for (const char* name : {"resnet50", "vgg16", "bert-large", "llama3-8b", "mixtral-8x7b"}) {
    CAPTURE(name);
    const ModelSpec model = find_model(name);
    std::int64_t in_matrices = 0;
    for (const Layer& layer : model.layers()) {
      in_matrices += layer.weight_matrices * layer.weight_rows * layer.weight_cols;
      CHECK(layer.weight_matrices * layer.weight_rows * layer.weight_cols <= layer.params);
    }
    // Matrices hold nearly all of a model's parameters; the rest are biases and norms.
    CHECK(static_cast<double>(in_matrices) > 0.95 * static_cast<double>(model.params()));
  }
  // ResNet-50's first convolution, 64 x 3 x 7 x 7, as torch's view(64, -1) sees it.
  const ModelSpec resnet = find_model("resnet50");
  const Layer& conv1 = resnet.layers().front();
  CHECK(conv1.weight_rows == 64);
  CHECK(conv1.weight_cols == 3 * 7 * 7);
}

TEST_CASE("ddp iteration with compressed buckets: overlap off is k(F + B) + encodes + chains + O", "[compression]") {
  // The hand-worked setup (F = 4, B = 8, O = 1 ms), bucket 1 (200 B) synchronized as: 0.5 ms of encoding, an
  // AllGather of 40 B (3 ms), 2 ms of kernels. Buckets 0 and 2 stay plain (5 and 2 ms).
  DdpSetup setup = test::hand_worked(false);
  setup.syncs = {BucketSync::plain(Bytes{100}), BucketSync{}, BucketSync::plain(Bytes{300})};
  setup.syncs[1].encode = SimTime::from_us(500);
  setup.syncs[1].steps = {SyncStep::collective(CollectiveOp::all_gather, Bytes{40}, "gather"),
                          SyncStep::compute(ms(2), "kernels")};
  const auto base = setup.collective_time;
  setup.collective_time = [base](CollectiveOp op, Bytes size) {
    return op == CollectiveOp::all_gather ? ms(3) : base(op, size);
  };
  const IterationTimeline t = simulate_ddp_iteration(setup);
  CHECK(t.compute == ms(12) + SimTime::from_us(500));
  CHECK(t.communication == ms(5 + 5 + 2));
  CHECK(t.iteration == ms(12) + SimTime::from_us(500) + ms(12) + ms(1));

  SECTION("a wrong number of synchronizations is refused") {
    setup.syncs.pop_back();
    CHECK_THROWS_AS(simulate_ddp_iteration(setup), InputError);
  }
}

TEST_CASE("run_synchronous: iterations before compress_from run the plain buckets", "[compression]") {
  SynchronousRunSetup setup;
  setup.ddp = test::hand_worked(false);
  // Every bucket compressed to a size the table does not know: a 4 ms AllReduce each.
  for (const GradientBucket& b : setup.ddp.buckets.buckets) {
    BucketSync sync;
    sync.steps = {SyncStep::collective(CollectiveOp::allreduce, Bytes{b.bytes.value + 1}, "allreduce")};
    setup.ddp.syncs.push_back(sync);
  }
  const auto base = setup.ddp.collective_time;
  setup.ddp.collective_time = [base](CollectiveOp op, Bytes size) {
    return size.value % 100 == 0 ? base(op, size) : ms(4);
  };
  setup.ranks = 3;
  setup.iterations = 5;
  setup.compress_from = 2;
  const SynchronousRunResult r = run_synchronous(setup);
  // Plain: 12 + 8 + 1 = 21 ms; compressed: 12 + 12 + 1 = 25 ms.
  CHECK(r.iteration_times == std::vector<SimTime>{ms(21), ms(21), ms(25), ms(25), ms(25)});
}
