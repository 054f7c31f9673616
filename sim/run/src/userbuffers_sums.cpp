// ResolvedScenario::with_userbuffers_sums: the sum after Transformer Engine's ring-exchange reduce-scatter.
//
// A forward reduce-scatter that a userbuffers configuration runs as `ring_exchange` (proj_fprop or fc2_fprop;
// tensor_overlap.hpp) passes each GEMM step's partial output chunk on to the next rank, and ends with a kernel on the
// compute stream that sums the t partial chunks the rank holds (TE v1.8 comm_gemm_overlap.h, split_overlap_rs:
// torch::sum_out over the reduce buffer, or reduce_fp8_in_bf16_out when the buffer is FP8, fp8_buf under
// model.precision fp8). It reads the micro-batch's whole b x s x h / c activation, t chunks of its 1/t, in the
// buffer's type, and writes the rank's 1/t in 16 bits: a memory-bound kernel after the row-parallel product. The
// pipelined and bulk methods reduce inside their collectives' kernels (userbuffers.cu), on their own SMs.
#include "resolved_scenario.hpp"
#include "tensor_overlap.hpp"

namespace syncsim::run {

LayerTimes ResolvedScenario::with_userbuffers_sums(LayerTimes times, std::int64_t samples, RankSplit split) const {
  const auto& t = model_.transformer();
  const UserbuffersConfig* config = userbuffers();
  if (split.tensor < 2 || !t || !config) return times;
  const auto elements = static_cast<double>(samples) * static_cast<double>(t->sequence) *
                        static_cast<double>(t->hidden) / static_cast<double>(split.context);
  const auto out_bytes = static_cast<double>(element_bytes(precision()));
  const std::vector<Layer>& layers = model_.layers();
  for (const auto& [first, last] : t->blocks) {
    // A block's row-parallel products in order: the attention projection, then FC2.
    int row = 0;
    for (std::size_t l = first; l < last && l < times.forward.size(); ++l) {
      if (layers[l].kind != LayerKind::gemm || layers[l].shape.split != TensorSplit::inputs || row > 1) continue;
      const OverlapSpec spec =
          userbuffers_overlap(row++ == 0 ? UbLayer::proj_fprop : UbLayer::fc2_fprop, *config, split.tensor);
      if (!is_ring(spec.method)) continue;
      const double buffer_bytes = spec.fp8_buffer && precision() == Precision::fp8 ? 1 : out_bytes;
      times.forward[l] +=
          compute_->streaming_time(elements * buffer_bytes + elements / static_cast<double>(split.tensor) * out_bytes);
    }
  }
  return times;
}

}  // namespace syncsim::run
