#include "memory_text.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace syncsim::app {

std::string gib_text(Bytes bytes) {
  return fmt::format("{:.2f} GiB", static_cast<double>(bytes.value) / (1LL << 30));
}

std::string memory_verdict(const MemoryReport& m) {
  return fmt::format("{}: {} of {} (reserved {}, CUDA context{} and NCCL {}){}", m.fits ? "fits" : "DOES NOT FIT",
                     gib_text(m.total), gib_text(m.capacity), gib_text(m.reserved),
                     m.userbuffers.value > 0 ? ", userbuffers" : "", gib_text(m.total - m.reserved),
                     m.fits ? "" : fmt::format(" (short by {})", gib_text(m.shortfall)));
}

void print_allocator_lines(std::ostream& out, const MemoryReport& m, const Scenario& s) {
  const ParallelismConfig& p = s.parallelism;
  const ShardingLevel sharding = p.sharding.value;
  fmt::print(out, "transient        loss buffers {}  workspaces {}\n", gib_text(m.loss_buffers),
             gib_text(m.workspaces));
  fmt::print(out, "peak             allocated {}  reserved {} (fragmentation {})\n", gib_text(m.allocated),
             gib_text(m.reserved), gib_text(m.fragmentation));
  fmt::print(out, "outside torch    CUDA context {}  NCCL buffers {} ({} communicator(s)){}\n",
             gib_text(m.cuda_context), gib_text(m.nccl_buffers), m.communicators,
             m.userbuffers.value > 0 ? fmt::format("  userbuffers {}", gib_text(m.userbuffers)) : "");
  // parallelism.grad_reduce_in_fp32: Megatron's main grads in FP32 (its default) or the working precision.
  const char* grads = p.grad_reduce_in_fp32.value ? "FP32 main grads" : "main grads in the working precision";
  const char* state = sharding == ShardingLevel::gradients
                          ? " and optimizer state sharded over data x context (Megatron-FSDP's optim_grads)"
                      : sharding == ShardingLevel::optimizer
                          ? ", distributed optimizer over data x context"
                          : ", the optimizer state whole on every data-parallel rank";
  const std::string megatron = fmt::format("Megatron: {}{}, vocabulary-parallel loss", grads, state);
  // memory_check.hpp: FSDP under a pipeline accumulates whole FP32 gradients; under tensor parallelism the loss is
  // loss_parallel and ColwiseParallel keeps its gathered inputs whole.
  const bool tensor = p.tensor.value > 1;
  const std::string pytorch = fmt::format("PyTorch: {}, {}{}",
                                          sharding == ShardingLevel::full && p.pipeline.value > 1
                                              ? "whole FP32 gradients accumulated over the micro-batches"
                                              : "gradients in the working precision",
                                          s.model.compile_loss.value ? "compiled loss over 16-bit logits"
                                          : tensor                   ? "loss_parallel over FP32 logits"
                                                                     : "cross_entropy over FP32 logits",
                                          tensor ? ", column-parallel inputs gathered whole" : "");
  const char* stream =
      p.sequence_parallel.value || p.tensor.value == 1 ? "" : ", the residual stream whole (no sequence parallelism)";
  fmt::print(out, "laid out as      {}\n",
             m.framework == MemoryFramework::megatron ? std::string(megatron) + stream : pytorch);
}

}  // namespace syncsim::app
