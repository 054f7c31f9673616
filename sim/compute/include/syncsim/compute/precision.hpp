#pragma once
// Precision: the arithmetic a training step runs in, which picks the GPU's peaks (GpuSpec::peak) and the size of
// an activation element.
//
//   fp32   IEEE single precision on the ordinary FP32 units (no tensor cores)
//   tf32   FP32 storage, matrix products on TF32 tensor cores (Ampere and later; PyTorch's allow_tf32)
//   fp16   mixed precision: FP16 activations and weight copies, FP32 master weights (with loss scaling)
//   bf16   mixed precision as fp16, with bfloat16 (Ampere and later)
//
// The scaled low-precision recipes run as Transformer Engine runs them (docs/compute.md, "Low precision"): the
// matrix products of the transformer blocks' linear layers in the low format, with scaling factors, and everything
// else — attention, norms, activations, the LM head, the loss, communication — in bf16, with FP32 master weights
// and optimizer state:
//
//   fp8    FP8 (E4M3 forward, E5M2 gradients) with one scale per tensor: Hopper, Ada, Blackwell, CDNA 3 and 4
//   mxfp8  FP8 with one E8M0 scale per 32 elements (OCP microscaling): Blackwell, CDNA 4
//   nvfp4  FP4 (E2M1) with one E4M3 scale per 16 elements and one FP32 scale per tensor: Blackwell
//   mxfp4  FP4 (E2M1) with one E8M0 scale per 32 elements (OCP microscaling): Blackwell, CDNA 4
#include <array>
#include <cstdint>
#include <string_view>

namespace syncsim {

enum class Precision { fp32, tf32, fp16, bf16, fp8, mxfp8, nvfp4, mxfp4 };

// Every precision, in the order above (lists of supported precisions follow it).
inline constexpr std::array<Precision, 8> kAllPrecisions{Precision::fp32,  Precision::tf32, Precision::fp16,
                                                         Precision::bf16,  Precision::fp8,  Precision::mxfp8,
                                                         Precision::nvfp4, Precision::mxfp4};

std::string_view to_string(Precision precision);
// Case-insensitive; throws InputError listing the accepted names.
Precision parse_precision(std::string_view text);

// Bytes of one activation, gradient or working-copy weight element: 4 for fp32/tf32, 2 for the rest (the scaled
// recipes keep them in bf16).
std::int64_t element_bytes(Precision precision);
// True for every precision but fp32/tf32: the optimizer keeps FP32 master weights beside the working copy
// (memory_check.hpp).
bool is_mixed(Precision precision);
// True for fp8, mxfp8, nvfp4 and mxfp4: the blocks' matrix products run in a scaled low-precision format.
bool is_scaled(Precision precision);
// The precision of the work a scaled recipe leaves in high precision (bf16); the precision itself otherwise.
Precision companion_precision(Precision precision);
// Bytes per element of a matrix product's operand in `precision`, its scaling factors included: 1 for fp8 (one
// scale per tensor), 1 + 1/32 for mxfp8, 0.5 + 1/16 for nvfp4, 0.5 + 1/32 for mxfp4; element_bytes otherwise.
double operand_bytes(Precision precision);

}  // namespace syncsim
