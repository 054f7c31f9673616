#pragma once
// The catalog's kernel-model data (GpuSpec's multiprocessors, best_gemm, flash_attention, board_power_watts,
// sustained_matmul), kept apart from the datasheet peaks in gpu_spec.cpp: each value with its source in
// gpu_kernel_data.cpp.
#include <vector>

#include "syncsim/compute/gpu_spec.hpp"

namespace syncsim::compute_detail {

void add_kernel_data(std::vector<GpuCatalogEntry>& catalog);

}  // namespace syncsim::compute_detail
