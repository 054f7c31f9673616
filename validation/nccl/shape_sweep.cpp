#include "shape_sweep.hpp"

#include <algorithm>
#include <cstdint>

#include "cuda_check.hpp"
#include "cuda_resources.hpp"
#include "kernels.hpp"

namespace syncsim::cuda {

std::vector<GemmResult> measure_gemm_shapes(const std::vector<GemmShape>& shapes, const LtPrecision& precision,
                                            cudaStream_t stream, int warmup, int iters) {
  std::vector<GemmResult> results;
  if (shapes.empty()) return results;
  std::int64_t a_elements = 0;
  std::int64_t b_elements = 0;
  std::int64_t d_elements = 0;
  for (const GemmShape& shape : shapes) {
    a_elements = std::max(a_elements, shape.k * shape.m);
    b_elements = std::max(b_elements, shape.k * shape.n);
    d_elements = std::max(d_elements, shape.m * shape.n);
  }
  DeviceBuffer a(static_cast<std::size_t>(a_elements) * precision.operand_bytes);
  DeviceBuffer b(static_cast<std::size_t>(b_elements) * precision.operand_bytes);
  DeviceBuffer d(static_cast<std::size_t>(d_elements) * kLtOutputBytes);
  DeviceBuffer workspace(kLtWorkspaceBytes);
  SYNCSIM_CUDA(fill_matrix(a.ptr, a_elements, precision.fill, stream));
  SYNCSIM_CUDA(fill_matrix(b.ptr, b_elements, precision.fill, stream));
  LtHandle lt;
  EventTimer timer;
  for (const GemmShape& shape : shapes) {
    const LtMatmul gemm(lt.handle, precision, shape, workspace.ptr, kLtWorkspaceBytes);
    const double seconds =
        timer.seconds_per_call(stream, warmup, iters, [&] { gemm.run(a.ptr, b.ptr, d.ptr, stream); });
    results.push_back(timed_gemm(precision.name, "TN", shape, seconds));
  }
  return results;
}

}  // namespace syncsim::cuda
