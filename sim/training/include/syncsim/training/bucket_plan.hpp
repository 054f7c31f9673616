#pragma once
// BucketPlan: how PyTorch DDP groups a model's gradients into buckets, each bucket one AllReduce (docs/architecture.md
// §6).
//
// Gradient bytes of a layer = params x element_bytes(precision): 4 bytes for fp32/tf32 gradients, 2 for fp16/bf16
// (the gradient of the 16-bit working copy, as memory_check.hpp counts it). Layers without parameters produce no
// gradient and belong to no bucket.
//
// Layers are taken in REVERSE forward order (the order backward produces their gradients) and packed greedily:
// a layer joins the open bucket while the bucket stays within the cap; otherwise the bucket closes and the layer
// opens the next one. A layer larger than the cap gets a bucket of its own (the only way a bucket exceeds the cap).
//
// PyTorch's two differences, and what is kept:
//   - First bucket. torch.nn.parallel.DistributedDataParallel caps the FIRST bucket (the last layers, whose
//     gradients are ready first) at dist._DEFAULT_FIRST_BUCKET_BYTES = 1 MiB and the rest at bucket_cap_mb
//     (25 MiB by default; 25 MB here, see kDdpDefaultBucketCap), so that communication starts early in backward. Kept:
//     `first_bucket_cap` (default 1 MiB); the effective first cap is min(first_bucket_cap, cap). Pass first_bucket_cap
//     = cap to switch it off.
//   - Overshoot. torch's compute_bucket_assignment_by_size adds a tensor and THEN closes the bucket once it
//     reaches the limit, so its buckets can exceed the cap by one tensor; it also buckets per parameter tensor
//     (weight and bias apart), not per layer. Here a bucket never exceeds its cap unless it holds one layer that
//     does, and a layer's gradients stay in one bucket.
//
//   BucketPlan plan = make_buckets(find_model("resnet50"), kDdpDefaultBucketCap, Precision::fp16);
//   plan.buckets[0].ready_after_layer   // forward index of the layer whose backward completes bucket 0
#include <cstddef>
#include <vector>

#include "syncsim/compute/model_spec.hpp"
#include "syncsim/compute/precision.hpp"
#include "syncsim/core/units.hpp"

namespace syncsim {

// The scenario's default (training.bucket_size) and every run's: 25 MB. torch's bucket_cap_mb = 25 is 25 MiB (it
// multiplies by 1024 * 1024); the 5% between them moves a bucket boundary now and then, and every report so far was
// computed with 25 MB.
inline constexpr Bytes kDdpDefaultBucketCap{25'000'000};
inline constexpr Bytes kDdpDefaultFirstBucketCap{1LL << 20};  // dist._DEFAULT_FIRST_BUCKET_BYTES

struct GradientBucket {
  Bytes bytes;
  std::vector<std::size_t> layers;    // forward indices, in the order backward produces them (descending)
  std::size_t ready_after_layer = 0;  // layers.back(): its backward produces the bucket's last gradient
};

struct BucketPlan {
  std::vector<GradientBucket> buckets;  // in launch order: bucket 0 is ready first
  Bytes total_bytes() const;
};

// Gradient bytes of one layer (see above).
Bytes gradient_bytes(const Layer& layer, Precision precision);

// Bytes one FSDP all-gather of a layer's weights moves: its working copy, as gradient_bytes; with torchao's float8
// all-gather (`fp8_all_gather`: Float8Linear's fsdp_pre_all_gather casts the local shard to FP8 before the
// all-gather, torchao/float8/fsdp_utils.py) a linear layer the fp8 recipe runs in FP8 (LayerKind::gemm: the blocks'
// linears; the LM head stays bf16, as torchtitan leaves `output` unconverted) moves 1 byte per element, plus its
// FP32 per-tensor scale (4 bytes a weight: the amax each rank reduces with the others,
// precompute_float8_dynamic_scale_for_fsdp).
Bytes weight_gather_bytes(const Layer& layer, Precision precision, bool fp8_all_gather);

// Per unit of `units` (FSDP's units are gradient buckets of `model`), what its FP8 weight all-gather moves: the sum
// of its layers' weight_gather_bytes, split `parts` ways (rounded up) when each rank holds 1/parts of every layer
// (tensor parallelism).
std::vector<Bytes> fp8_gather_bytes(const ModelSpec& model, const BucketPlan& units, Precision precision,
                                    std::int64_t parts = 1);

// Throws InputError for a cap or first cap below one byte.
BucketPlan make_buckets(const ModelSpec& model, Bytes cap, Precision precision,
                        Bytes first_bucket_cap = kDdpDefaultFirstBucketCap);

}  // namespace syncsim
