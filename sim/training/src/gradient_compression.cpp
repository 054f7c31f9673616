#include "syncsim/training/gradient_compression.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "name_table.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

constexpr double kIndexBytes = 4;            // top-k's int32 indices
constexpr double kSelectPasses = 4;          // radix select over 32-bit keys, one pass per byte
constexpr double kOrthogonalizeKernels = 3;  // per column: norm, scale, projection out of the rest
constexpr double kHalfBytes = 2;             // fp16, bf16

// The kernel times accumulated for one stream.
class KernelCost {
 public:
  explicit KernelCost(const ComputeModel& compute) : compute_(&compute) {}
  void add(double flops, double bytes) { total_ += compute_->kernel_time(flops, bytes); }
  // A streaming kernel over `elements` elements touching `bytes_per_element` bytes each.
  void stream(double elements, double bytes_per_element) { add(0, elements * bytes_per_element); }
  // The product of an a x b by a b x c matrix of `e`-byte elements.
  void product(double a, double b, double c, double e) { add(2 * a * b * c, (a * b + b * c + a * c) * e); }
  SimTime take() { return std::exchange(total_, SimTime::zero()); }

 private:
  const ComputeModel* compute_;
  SimTime total_;
};

// Calls visit(rows, cols) for each weight matrix of the bucket's layers (every expert's of a MoE layer).
template <typename F>
void for_each_matrix(const ModelSpec& model, const GradientBucket& bucket, F&& visit) {
  for (const std::size_t index : bucket.layers) {
    const Layer& layer = model.layers()[index];
    for (std::int64_t m = 0; m < layer.weight_matrices; ++m) visit(layer.weight_rows, layer.weight_cols);
  }
}

std::int64_t bucket_elements(const ModelSpec& model, const GradientBucket& bucket) {
  std::int64_t n = 0;
  for (const std::size_t index : bucket.layers) n += model.layers()[index].params;
  return n;
}

BucketSync half_precision_sync(std::int64_t n, double e, KernelCost& cost) {
  BucketSync sync;
  const auto elements = static_cast<double>(n);
  cost.stream(elements, e + kHalfBytes);  // cast to 16 bits
  cost.stream(elements, 2 * kHalfBytes);  // divide by the world size, in place
  sync.encode = cost.take();
  sync.steps.push_back(SyncStep::collective(CollectiveOp::allreduce, Bytes{n * 2}, "allreduce 16-bit"));
  cost.stream(elements, kHalfBytes + e);  // cast back into the bucket
  sync.steps.push_back(SyncStep::compute(cost.take(), "decompress"));
  return sync;
}

BucketSync powersgd_sync(const ModelSpec& model, const GradientBucket& bucket, const GradientCompression& c, double e,
                         KernelCost& cost) {
  const PowerSgdSplit split = powersgd_split(model, bucket, c.rank, c.min_compression_rate);
  // Nothing worth compressing: the hook only packs the bucket and reduces it as it is.
  if (split.compressed_matrices == 0) return BucketSync::plain(bucket.bytes);
  const auto n = static_cast<double>(bucket_elements(model, bucket));
  const auto uncompressed = static_cast<double>(split.uncompressed_elements);
  BucketSync sync;
  if (c.error_feedback) {
    cost.stream(n, 2 * e);  // keep the input for the error
    cost.stream(n, 3 * e);  // add last iteration's error
  }
  if (split.uncompressed_elements > 0) cost.stream(uncompressed, 2 * e);  // packed and divided
  for_each_matrix(model, bucket, [&](std::int64_t rows, std::int64_t cols) {
    const std::int64_t r = powersgd_rank(rows, cols, c.rank, c.min_compression_rate);
    if (r > 0) cost.product(static_cast<double>(rows), static_cast<double>(cols), static_cast<double>(r), e);  // P
  });
  sync.encode = cost.take();
  const auto bytes = [&](std::int64_t elements) { return Bytes{elements * static_cast<std::int64_t>(e)}; };
  if (split.uncompressed_elements > 0) {
    sync.steps.push_back(
        SyncStep::collective(CollectiveOp::allreduce, bytes(split.uncompressed_elements), "allreduce uncompressed"));
    cost.stream(uncompressed, 2 * e);  // unpacked into the bucket
    sync.steps.push_back(SyncStep::compute(cost.take(), "unpack uncompressed"));
  }
  sync.steps.push_back(SyncStep::collective(CollectiveOp::allreduce, bytes(split.p_elements), "allreduce P"));
  for_each_matrix(model, bucket, [&](std::int64_t rows, std::int64_t cols) {
    const std::int64_t r = powersgd_rank(rows, cols, c.rank, c.min_compression_rate);
    if (r == 0) return;
    const auto p = static_cast<double>(rows * r);
    for (std::int64_t k = 0; k < r; ++k) {
      for (int kernel = 0; kernel < kOrthogonalizeKernels; ++kernel) {
        cost.add(2 * p, 2 * p * e);
      }
    }
    cost.product(static_cast<double>(cols), static_cast<double>(rows), static_cast<double>(r), e);  // Q = M^T P
  });
  sync.steps.push_back(SyncStep::compute(cost.take(), "orthogonalize P, Q = M^T P"));
  sync.steps.push_back(SyncStep::collective(CollectiveOp::allreduce, bytes(split.q_elements), "allreduce Q"));
  for_each_matrix(model, bucket, [&](std::int64_t rows, std::int64_t cols) {
    const std::int64_t r = powersgd_rank(rows, cols, c.rank, c.min_compression_rate);
    if (r > 0) cost.product(static_cast<double>(rows), static_cast<double>(r), static_cast<double>(cols), e);
  });
  if (c.error_feedback) cost.stream(n, 3 * e);  // the error: input minus approximation
  sync.steps.push_back(SyncStep::compute(cost.take(), "decompress M = P Q^T"));
  return sync;
}

BucketSync topk_sync(std::int64_t n, const GradientCompression& c, double e, std::int64_t ranks, KernelCost& cost) {
  const std::int64_t k = topk_entries(n, c.ratio);
  const auto elements = static_cast<double>(n);
  const double entry = e + kIndexBytes;
  const double gathered = static_cast<double>(ranks) * static_cast<double>(k);
  BucketSync sync;
  if (c.error_feedback) cost.stream(elements, 3 * e);  // add last iteration's error
  for (int pass = 0; pass < kSelectPasses; ++pass) cost.stream(elements, e);
  cost.stream(static_cast<double>(k), entry);          // the selected values and indices written out
  if (c.error_feedback) cost.stream(elements, 2 * e);  // the error: what was not selected
  sync.encode = cost.take();
  sync.steps.push_back(SyncStep::collective(CollectiveOp::all_gather,
                                            Bytes{ranks * k * static_cast<std::int64_t>(entry)}, "allgather top-k"));
  cost.stream(elements, e);                        // zero the dense gradient
  cost.add(gathered, gathered * (entry + 2 * e));  // scatter-add every rank's entries
  cost.stream(elements, 2 * e);                    // divide by the world size
  sync.steps.push_back(SyncStep::compute(cost.take(), "scatter-add"));
  return sync;
}

}  // namespace

std::string_view to_string(CompressionKind kind) {
  return training_detail::name_in(kCompressionNames, kind);
}

Bytes BucketSync::wire_bytes() const {
  Bytes total;
  for (const SyncStep& step : steps) {
    if (step.kind == SyncStep::Kind::collective) total += step.bytes;
  }
  return total;
}

double BucketSync::bus_bytes(std::int64_t ranks) const {
  double total = 0;
  for (const SyncStep& step : steps) {
    if (step.kind != SyncStep::Kind::collective) continue;
    total += bus_factor(step.op, static_cast<std::size_t>(ranks)) * static_cast<double>(step.bytes.value);
  }
  return total;
}

SimTime BucketSync::compute_on_stream() const {
  SimTime total;
  for (const SyncStep& step : steps) {
    if (step.kind == SyncStep::Kind::compute) total += step.time;
  }
  return total;
}

BucketSync BucketSync::plain(Bytes bucket_bytes) {
  BucketSync sync;
  sync.steps.push_back(SyncStep::collective(CollectiveOp::allreduce, bucket_bytes, "allreduce"));
  return sync;
}

std::int64_t powersgd_rank(std::int64_t rows, std::int64_t cols, std::int64_t rank, double min_compression_rate) {
  if (rows <= 0 || cols <= 0) return 0;
  const std::int64_t r = std::min({rank, rows, cols});
  const double compressed = static_cast<double>(rows + cols) * static_cast<double>(r);
  return compressed * min_compression_rate < static_cast<double>(rows) * static_cast<double>(cols) ? r : 0;
}

PowerSgdSplit powersgd_split(const ModelSpec& model, const GradientBucket& bucket, std::int64_t rank,
                             double min_compression_rate) {
  PowerSgdSplit split;
  split.uncompressed_elements = bucket_elements(model, bucket);
  for_each_matrix(model, bucket, [&](std::int64_t rows, std::int64_t cols) {
    const std::int64_t r = powersgd_rank(rows, cols, rank, min_compression_rate);
    if (r == 0) return;
    split.uncompressed_elements -= rows * cols;
    split.compressed_elements += rows * cols;
    split.p_elements += rows * r;
    split.q_elements += cols * r;
    ++split.compressed_matrices;
  });
  return split;
}

std::int64_t topk_entries(std::int64_t elements, double ratio) {
  const double k = std::ceil(ratio * static_cast<double>(elements));
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(k), 1, std::max<std::int64_t>(elements, 1));
}

std::vector<BucketSync> bucket_syncs(const ModelSpec& model, const BucketPlan& plan, std::int64_t element_bytes,
                                     const GradientCompression& compression, const ComputeModel& compute,
                                     std::int64_t ranks) {
  if (ranks < 1) throw InputError("gradient compression: ranks must be at least 1");
  KernelCost cost(compute);
  const auto e = static_cast<double>(element_bytes);
  std::vector<BucketSync> syncs;
  syncs.reserve(plan.buckets.size());
  for (const GradientBucket& bucket : plan.buckets) {
    const std::int64_t n = bucket_elements(model, bucket);
    switch (compression.kind) {
      case CompressionKind::none:
        syncs.push_back(BucketSync::plain(bucket.bytes));
        break;
      case CompressionKind::fp16:
      case CompressionKind::bf16:
        syncs.push_back(e > kHalfBytes ? half_precision_sync(n, e, cost) : BucketSync::plain(bucket.bytes));
        break;
      case CompressionKind::powersgd:
        syncs.push_back(powersgd_sync(model, bucket, compression, e, cost));
        break;
      case CompressionKind::topk:
        syncs.push_back(topk_sync(n, compression, e, ranks, cost));
        break;
    }
  }
  return syncs;
}

}  // namespace syncsim
