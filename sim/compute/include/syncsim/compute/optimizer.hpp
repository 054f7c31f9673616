#pragma once
// Optimizer: the update rule, which decides the optimizer state kept per parameter (memory_check.hpp) and the
// memory traffic of the step (compute_model.hpp).
//
// Bytes per parameter, ZeRO's accounting (Rajbhandari et al., SC'20, §3.1): with mixed precision (fp16/bf16) the
// optimizer keeps FP32 master weights beside the 16-bit weights it hands to forward and backward.
//
//                 state kept (fp32 / tf32)     state kept (fp16 / bf16)          step traffic (both)
//   sgd           0                            4  master weights                 12
//   momentum      4  momentum                  8  master + momentum              20
//   adam          8  first and second moment  12  master + two moments           28
//
// Step traffic is one fused pass (multi-tensor apply): read weights, gradient and each state, write weights and
// each state back. fp32: w, g read and w written (4 + 4 + 4), plus 8 per state tensor (read and write). Mixed:
// the 16-bit gradient read (2), the master read and written (8), the 16-bit weights written (2), plus 8 per
// moment — the same totals.
#include <cstdint>
#include <string_view>

#include "syncsim/compute/precision.hpp"

namespace syncsim {

enum class Optimizer { sgd, momentum, adam };

std::string_view to_string(Optimizer optimizer);
// Case-insensitive; "adamw" is adam (the same state and traffic). Throws InputError listing the names.
Optimizer parse_optimizer(std::string_view text);

// Optimizer state bytes per parameter (the middle columns above).
std::int64_t optimizer_state_bytes(Optimizer optimizer, Precision precision);
// Memory bytes moved per parameter by one optimizer step (the last column).
std::int64_t optimizer_step_bytes(Optimizer optimizer);

}  // namespace syncsim
