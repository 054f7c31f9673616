#pragma once
// Precision: the arithmetic a training step runs in, which picks the GPU's peak (GpuSpec::peak) and the size of
// an activation element.
//
//   fp32  IEEE single precision on the ordinary FP32 units (no tensor cores)
//   tf32  FP32 storage, matrix products on TF32 tensor cores (Ampere and later; PyTorch's allow_tf32)
//   fp16  mixed precision: FP16 activations and weight copies, FP32 master weights (with loss scaling)
//   bf16  mixed precision as fp16, with bfloat16 (Ampere and later)
#include <cstdint>
#include <string_view>

namespace syncsim {

enum class Precision { fp32, tf32, fp16, bf16 };

std::string_view to_string(Precision precision);
// Case-insensitive; throws InputError listing the accepted names.
Precision parse_precision(std::string_view text);

// Bytes of one activation or working-copy weight element: 4 for fp32/tf32, 2 for fp16/bf16.
std::int64_t element_bytes(Precision precision);
// True for fp16/bf16, whose optimizer keeps FP32 master weights beside the 16-bit copy (memory_check.hpp).
bool is_mixed(Precision precision);

}  // namespace syncsim
