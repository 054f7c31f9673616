#pragma once
// ModelSpec: a neural network as the compute model sees it — an ordered list of layers, each one kernel's worth of
// work, with what the roofline (compute_model.hpp) and the memory check (memory_check.hpp) need.
//
// Counts are elements and FLOPs, not bytes: the precision decides the element size (precision.hpp), so one
// ModelSpec serves every precision. Per-sample counts scale with the batch; weights are read once per batch.
//
//   forward bytes of a layer for batch B = (weight_elements_read + B x activation_elements_moved) x element size
//   saved bytes for backward             =  B x (saved_elements x element size + saved_mask_bytes)
//
// Inline definitions go through the constructor, which validates:
//
//   ModelSpec mlp("mlp", {{.name = "fc1", .params = 1'049'600, .forward_flops = 2'097'152,
//                          .weight_elements_read = 1'049'600, .activation_elements_moved = 2048,
//                          .saved_elements = 1024}});
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace syncsim {

// The kernel a layer is, which decides the arithmetic it runs in: under a scaled precision (precision.hpp) only
// `gemm` layers run in the low format, as Transformer Engine's Linear modules do inside a transformer block.
enum class LayerKind {
  other,        // memory-bound work (norms, activations, residual adds, dropout, pooling, the loss), and a listed
                // layer that names no kind
  gemm,         // a linear layer of a transformer block (the projections, the MLP, the experts' grouped GEMMs)
  gemm_kept,    // a matrix product the scaled recipes keep in 16 bits: the LM head (Megatron's output layer, not a
                // Transformer Engine module), a MoE router, a pooler, a CNN's classifier
  attention,    // the attention core: flash attention's kernel, or eager attention's scores and context products
  convolution,  // a CNN's convolution (cuDNN; no scaled recipe covers it)
  embedding,    // a table lookup
};

// Which dimension of a block GEMM's weight Megatron's tensor parallelism splits: a column-parallel linear (the QKV,
// gate/up and first MLP projections, the LM head) splits its outputs N, a row-parallel one (the attention output and
// the MLP's down projection) its inputs K.
enum class TensorSplit { none, outputs, inputs };

// What the kernel model (kernel_model.hpp) needs beyond FLOPs and bytes: the shape of the kernel the layer runs and
// how eager PyTorch runs it. tokens = 0: no shape known (a CNN layer, a listed layer), and the layer runs on the
// constant-efficiency roofline.
struct KernelShape {
  std::int64_t tokens = 0;    // per sample: a GEMM's rows M (s, or s·k routed copies); attention's query length
  std::int64_t head_dim = 0;  // attention: d, the width of one head
  bool causal = false;        // attention: a decoder's mask (half the score tiles are skipped)
  TensorSplit split = TensorSplit::none;
  // Eager PyTorch (model.kernels: eager) runs a memory-bound layer as eager_kernels separate kernels moving
  // eager_traffic times the fused kernel's bytes (RMSNorm's upcasts to fp32, rotary's complex views); fused
  // (Transformer Engine, Megatron's fusions, compiled graphs) moves fused_traffic times them (0: the layer is folded
  // into its neighbour, as SwiGLU's silu into its product).
  std::int64_t eager_kernels = 1;
  double eager_traffic = 1;
  double fused_traffic = 1;
  // Megatron runs the layer as PyTorch's ops, eager's kernels and bytes, where compiled graphs fuse it: an activation
  // its fusions do not cover (Core 0.8's bias_activation_fusion takes GELU and SwiGLU only; squared ReLU stays
  // torch.pow(relu(x), 2)).
  bool eager_under_megatron = false;
  // Inside a transformer block: compiled per block (model.kernels: compiled, torchtitan's torch.compile of each
  // TransformerBlock) the layer runs fused; outside (the final norm, the loss) it stays eager.
  bool in_block = false;
  // Per sample: what Megatron's fused kernel keeps for backward in place of saved_elements (-1: the same). Its
  // bias-SwiGLU keeps only its input (gate and up) and recomputes silu(gate), where eager PyTorch's product also keeps
  // silu(gate).
  std::int64_t fused_saved_elements = -1;
  // The loss (cross entropy over the logits): compiled on its own under ComputeOptions::compiled_loss.
  bool loss = false;
  // A linear layer reading the previous linear's input (K and V beside Q, up beside gate): Megatron runs them as
  // one GEMM (linear_qkv, linear_fc1), so under a scaled precision the input is cast once, by the first.
  bool shares_input = false;
  // The output width of the projection Megatron fuses the layer into (linear_qkv: Q, K and V side by side;
  // linear_fc1: gate and up), whose one GEMM the kernel model tiles under fused projections; 0: the layer's own.
  std::int64_t fused_rows = 0;
  // A block's linear layer right after a norm: Transformer Engine's LayerNormLinear (linear_qkv, linear_fc1) has the
  // norm write the GEMM's input already quantized, so the layer casts nothing in forward, and transposes that
  // quantized input in backward for the weight gradient.
  bool cast_by_norm = false;
  // Per sample, the elements a norm writes as the next layer's quantized input (cast_by_norm's norm); 0: none.
  std::int64_t quantized_output_elements = 0;
  // A norm, residual add or dropout on the s x h residual stream: what Megatron's sequence parallelism splits over
  // the tensor group (each rank s / t of the tokens), and what every tensor rank runs whole without it.
  bool sequence_region = false;
  // A transformer's embedding table: its backward writes the whole table's gradient (PyTorch's embedding backward
  // zero-fills it, then adds the tokens' rows), which is then added into the gradient buffer, every micro-batch
  // whatever its tokens. The vocabulary's table is split over the tensor group (Megatron's VocabParallelEmbedding), a
  // position table is not.
  bool dense_table_gradient = false;
  bool vocabulary_parallel = false;
};

struct Layer {
  std::string name;
  std::int64_t params = 0;                     // trainable parameters (gradients of this size)
  std::int64_t forward_flops = 0;              // per sample; a multiply-add counts 2
  std::int64_t weight_elements_read = 0;       // per forward pass (batch): usually params; 0 for a lookup table
  std::int64_t activation_elements_moved = 0;  // per sample: activations read plus written by the forward kernel
  std::int64_t saved_elements = 0;             // per sample: activations kept for backward, at activation precision
  // per sample: bytes kept for backward whatever the precision: dropout's 1-byte masks, flash attention's fp32
  // softmax statistics
  std::int64_t saved_mask_bytes = 0;
  // The weight as PyTorch's PowerSGD hook views it: weight_matrices matrices of weight_rows x weight_cols (a
  // tensor's first dimension by the rest: output channels by input channels x kernel, output by input features,
  // vocabulary by width; one per routed expert). The rest of params are vectors (biases, norms' scales). 0
  // matrices: none known (a norm, or a layer list that gives no weight_shape).
  std::int64_t weight_rows = 0;
  std::int64_t weight_cols = 0;
  std::int64_t weight_matrices = 0;
  LayerKind kind = LayerKind::other;
  KernelShape shape = {};
};

// Whether `layer` is a column-parallel product that takes the tensor group's gathered input (QKV, FC1, the LM head):
// the first of its siblings, which keeps the input they share (sibling products keep none).
inline bool takes_gathered_input(const Layer& layer) {
  return layer.shape.split == TensorSplit::outputs && layer.saved_elements > 0;
}

// A transformer's blocks and the widths its model-parallel communication moves, for the catalog's and the shape
// keys' transformers (a model given as a layer list has none, so tensor and context parallelism refuse it):
// Megatron's tensor parallelism reduces the s x h block output twice per block and direction, context parallelism
// gathers each block's K and V (s x kv_width each), pipeline stages cut between blocks.
struct TransformerStructure {
  std::int64_t hidden = 0;    // h, the residual stream's width
  std::int64_t sequence = 0;  // s, tokens per sample
  std::int64_t kv_width = 0;  // K's (and V's) width: kv_heads x head size, h without grouped-query attention
  std::int64_t heads = 0;     // attention heads (query heads); 0 when not known
  std::int64_t kv_heads = 0;  // key/value heads (query groups); 0 when not known
  std::vector<std::pair<std::size_t, std::size_t>> blocks;  // [first, last) layer range of each block, in order
  bool flash_attention = true;                              // attention as one fused kernel (no s x s tensor kept)
  // Mixture of experts: the routed experts per MoE block, the experts each token visits, the layers that hold the
  // routed experts' weights (split over expert parallelism) and each MoE block's dispatch layer (where its
  // all-to-all goes); empty for a dense model.
  std::int64_t experts = 1;
  std::int64_t experts_per_token = 1;
  std::vector<std::size_t> expert_layers;
  std::vector<std::size_t> dispatch_layers;
};

class ModelSpec {
 public:
  // Throws InputError (key "layers[i].field") for an empty name, no layers, an unnamed or duplicate layer, a
  // negative count, or a layer that does no work at all; and for a structure whose blocks are empty, overlap, run
  // out of order or past the layers.
  ModelSpec(std::string name, std::vector<Layer> layers, std::optional<TransformerStructure> transformer = {});

  const std::string& name() const { return name_; }
  const std::vector<Layer>& layers() const { return layers_; }

  std::int64_t params() const { return params_; }
  std::int64_t forward_flops() const { return forward_flops_; }  // per sample
  std::int64_t saved_elements() const { return saved_elements_; }
  std::int64_t saved_mask_bytes() const { return saved_mask_bytes_; }
  const std::optional<TransformerStructure>& transformer() const { return transformer_; }

 private:
  std::string name_;
  std::vector<Layer> layers_;
  std::int64_t params_ = 0;
  std::int64_t forward_flops_ = 0;
  std::int64_t saved_elements_ = 0;
  std::int64_t saved_mask_bytes_ = 0;
  std::optional<TransformerStructure> transformer_;
};

}  // namespace syncsim
