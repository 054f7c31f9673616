// An embedding table's backward as PyTorch runs it (compute_model.hpp, ComputeModel::table_gradient): the whole
// table's gradient, whatever the batch's tokens, which for a large vocabulary is what the embedding's backward costs.
#include "syncsim/compute/compute_model.hpp"

namespace syncsim {

namespace {
constexpr double kFp32GradientBytes = 4;
constexpr std::int64_t kTableGradientKernels = 2;  // the zero fill, the accumulation into the buffer
}  // namespace

SimTime ComputeModel::table_gradient(const Layer& layer, RankSplit split) const {
  // PyTorch's embedding_dense_backward zero-fills a gradient the table's size (e bytes an element) and adds the
  // tokens' rows into it (those few rows are the layer's backward); the step then adds it into the gradient buffer
  // (Megatron's hook, main_grad.add_(grad), or autograd's accumulation across micro-batches): read e, read and write
  // g, g = 4 for an FP32 buffer (Megatron's main grads, the default), e otherwise.
  const auto rows =
      static_cast<double>(layer.weight_rows) / static_cast<double>(layer.shape.vocabulary_parallel ? split.tensor : 1);
  const double elements = rows * static_cast<double>(layer.weight_cols);
  const auto e = static_cast<double>(element_bytes(precision_));
  const double g = options_.fp32_gradient_buffer ? kFp32GradientBytes : e;
  return streaming_time(elements * (2 * e + 2 * g), kTableGradientKernels);
}

}  // namespace syncsim
