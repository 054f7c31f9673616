// The loss as Megatron runs it (compute_model.hpp, ComputeModel::megatron_loss): its vocabulary-parallel cross
// entropy, whose passes over the FP32 logits are what a large vocabulary's loss costs.
#include "syncsim/compute/compute_model.hpp"

namespace syncsim {

namespace {
constexpr double kFp32 = 4;

// Bytes per logit, e the logits' element size (Megatron Core 0.8, tensor_parallel/cross_entropy.py and
// fusions/fused_cross_entropy.py). The logits are upcast first (a copy, 16 bits in and FP32 out; none when they are
// FP32 already); each later pass reads and writes the FP32 tensor in place.
//   unfused: .float() e+4, max 4, subtract the max 4+4, exp 4+4, sum 4, divide by the sum 4+4 (6 kernels);
//     backward: times the loss gradient 4+4, and autograd's cast of the FP32 gradient back to the logits' type 4+e
//     (3 kernels with the target's index update, which touches one element a row).
//   fused (cross_entropy_loss_fusion: each of the three forward functions and the backward one under jit_fuser):
//     upcast with the max e+4 (FP32 logits: read 4), subtract, exp and sum 4+4, divide 4+4 (3 kernels); backward
//     reads the softmax and writes the gradient at the logits' type, 4+e (1 kernel).
struct LossPasses {
  double bytes;
  std::int64_t kernels;
};

LossPasses loss_passes(double e, bool fused, bool backward) {
  const bool upcast = e < kFp32;
  if (fused) {
    if (backward) return {kFp32 + e, 1};
    return {(upcast ? e + kFp32 : kFp32) + 4 * kFp32, 3};
  }
  if (backward) return {2 * kFp32 + (upcast ? kFp32 + e : 0), 3};
  return {(upcast ? e + kFp32 : 0) + 8 * kFp32, 6};
}
}  // namespace

bool ComputeModel::runs_megatron_loss(const Layer& layer) const {
  return layer.shape.loss && fused_projections() && !options_.compiled_loss;
}

SimTime ComputeModel::megatron_loss(const Layer& layer, std::int64_t batch, bool backward) const {
  // The cross entropy layer moves the logits in and their softmax out: activation_elements_moved is 2 x the logits.
  const double logits = static_cast<double>(batch) * static_cast<double>(layer.activation_elements_moved) / 2;
  const LossPasses passes =
      loss_passes(static_cast<double>(element_bytes(precision_)), options_.cross_entropy_loss_fusion, backward);
  return streaming_time(logits * passes.bytes, passes.kernels);
}

}  // namespace syncsim
