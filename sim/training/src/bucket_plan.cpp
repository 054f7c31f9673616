#include "syncsim/training/bucket_plan.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

Bytes BucketPlan::total_bytes() const {
  Bytes total;
  for (const GradientBucket& bucket : buckets) total += bucket.bytes;
  return total;
}

Bytes gradient_bytes(const Layer& layer, Precision precision) {
  return Bytes{layer.params * element_bytes(precision)};
}

Bytes weight_gather_bytes(const Layer& layer, Precision precision, bool fp8_all_gather) {
  if (!fp8_all_gather || layer.kind != LayerKind::gemm) return gradient_bytes(layer, precision);
  constexpr std::int64_t kScaleBytes = 4;
  return Bytes{layer.params + kScaleBytes * std::max<std::int64_t>(1, layer.weight_matrices)};
}

std::vector<Bytes> fp8_gather_bytes(const ModelSpec& model, const BucketPlan& units, Precision precision,
                                    std::int64_t parts) {
  std::vector<Bytes> out;
  for (const GradientBucket& unit : units.buckets) {
    std::int64_t bytes = 0;
    for (const std::size_t l : unit.layers) bytes += weight_gather_bytes(model.layers()[l], precision, true).value;
    out.push_back(Bytes{(bytes + parts - 1) / parts});
  }
  return out;
}

BucketPlan make_buckets(const ModelSpec& model, Bytes cap, Precision precision, Bytes first_bucket_cap) {
  if (cap.value < 1) throw InputError("bucket cap must be at least 1 byte, got " + std::to_string(cap.value));
  if (first_bucket_cap.value < 1) {
    throw InputError("first bucket cap must be at least 1 byte, got " + std::to_string(first_bucket_cap.value));
  }
  const Bytes first_cap = std::min(first_bucket_cap, cap);

  BucketPlan plan;
  GradientBucket open;
  const auto close = [&] {
    if (open.layers.empty()) return;
    open.ready_after_layer = open.layers.back();
    plan.buckets.push_back(std::move(open));
    open = GradientBucket{};
  };
  const auto& layers = model.layers();
  for (std::size_t i = layers.size(); i-- > 0;) {
    const Bytes bytes = gradient_bytes(layers[i], precision);
    if (bytes.value == 0) continue;
    const Bytes limit = plan.buckets.empty() ? first_cap : cap;
    if (!open.layers.empty() && open.bytes + bytes > limit) close();
    open.layers.push_back(i);
    open.bytes += bytes;
  }
  close();
  return plan;
}

}  // namespace syncsim
