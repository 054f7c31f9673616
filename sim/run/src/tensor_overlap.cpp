#include "tensor_overlap.hpp"

#include <algorithm>

namespace syncsim::run {

namespace {
constexpr int kCollectivesPerPass = 4;        // all-gather, reduce-scatter, all-gather, reduce-scatter
constexpr std::int64_t kPipelinedSplits = 4;  // TE's num_splits for the reduce-scatter overlaps
// SMs the pipelined reduce-scatters take, of an H100's 132 (TE's ub_cfg_h100_* configurations: 24 and 16).
constexpr double kReduceSms = 20;
constexpr double kGpuSms = 132;

SimTime exposed(SimTime half, SimTime gemm, std::int64_t chunks) {
  return std::max(SimTime::from_ps(half.ps() / chunks), std::max(SimTime::zero(), half - gemm));
}

SimTime slowdown(SimTime half, SimTime gemm) {
  const double share = kReduceSms / kGpuSms;
  return std::min(half, gemm).scaled(share / (1 - share));
}
}  // namespace

std::int64_t overlap_chunks(std::int64_t tensor, bool gather) {
  return gather ? tensor : kPipelinedSplits;
}

SimTime overlapped_collective(SimTime half, SimTime gemm, std::int64_t chunks, bool gather) {
  return exposed(half, gemm, chunks) + (gather ? SimTime::zero() : slowdown(half, gemm));
}

std::vector<BackwardOverlap> backward_overlaps(bool column, std::int64_t tensor) {
  if (!column) return {{.gather = true, .chunks = overlap_chunks(tensor, true), .gemm_scale = 2}};
  return {{.gather = true, .chunks = overlap_chunks(tensor, true), .gemm_scale = 1},
          {.gather = false, .chunks = overlap_chunks(tensor, false), .gemm_scale = 1}};
}

namespace {

// The forward GEMM time beside each of the four collectives: the block's four runs, or its GEMM time in quarters.
std::vector<SimTime> paired_runs(const BlockTensorInput& in) {
  if (in.gemm_runs.size() == kCollectivesPerPass) return in.gemm_runs;
  SimTime total;
  for (const SimTime run : in.gemm_runs) total += run;
  return std::vector<SimTime>(kCollectivesPerPass, SimTime::from_ps(total.ps() / kCollectivesPerPass));
}

SimTime half_of(SimTime allreduce) {
  return SimTime::from_ps(allreduce.ps() / 2);
}

// One collective each way, half its allreduce: the reduce-scatters', the inputs' all-gathers', the output gradients'.
struct Halves {
  SimTime scatter;
  SimTime gather;
  SimTime grad_gather;
};

// One pass's four collectives beside GEMMs of `gemm_scale` times the forward's (2 in backward), its all-gathers of
// `gather` each; with `gathers_only` its two all-gathers alone.
SimTime overlapped_pass(const BlockTensorInput& in, SimTime scatter, SimTime gather, double gemm_scale,
                        bool gathers_only = false) {
  const std::vector<SimTime> paired = paired_runs(in);
  SimTime out;
  for (int i = 0; i < kCollectivesPerPass; ++i) {
    const SimTime gemm = paired[static_cast<std::size_t>(i)].scaled(gemm_scale);
    const bool is_gather = i % 2 == 0;
    if (!is_gather && gathers_only) continue;
    out += overlapped_collective(is_gather ? gather : scatter, gemm, overlap_chunks(in.tensor, is_gather), is_gather);
  }
  return out;
}

// Megatron's backward (above): per column-parallel run an all-gather (of its input again) and a reduce-scatter beside
// one GEMM each, per row-parallel run an all-gather (of the output gradient) beside both.
SimTime keeps_shard_backward(const BlockTensorInput& in, const Halves& h) {
  const std::vector<SimTime> paired = paired_runs(in);
  SimTime out;
  for (int i = 0; i < kCollectivesPerPass; ++i) {
    const SimTime g = paired[static_cast<std::size_t>(i)];
    const bool column = i % 2 == 0;
    for (const BackwardOverlap& o : backward_overlaps(column, in.tensor)) {
      const SimTime half = !o.gather ? h.scatter : column ? h.gather : h.grad_gather;
      out += overlapped_collective(half, g.scaled(o.gemm_scale), o.chunks, o.gather);
    }
  }
  return out;
}
}  // namespace

BlockTensorTime block_tensor_time(const BlockTensorInput& in) {
  // Two all-gathers move what one allreduce moves.
  const std::int64_t regathers = in.keeps_shard ? 1 : 0;
  const SimTime gather_allreduce = in.gather_allreduce.value_or(in.allreduce);
  const SimTime grad_gather_allreduce = in.grad_gather_allreduce.value_or(in.allreduce);
  const bool one_type = gather_allreduce == in.allreduce && grad_gather_allreduce == in.allreduce;
  const Halves h{half_of(in.allreduce), half_of(gather_allreduce), half_of(grad_gather_allreduce)};
  if (!in.overlap && one_type) {
    return {.forward = in.allreduce * 2,
            .backward = in.allreduce * (2 * (1 + in.forward_again) + in.gathers_again + regathers)};
  }
  if (!in.overlap) {
    // Each pass: two all-gathers and two reduce-scatters; the inputs' gathers again (Megatron's, selective_op's).
    const SimTime forward = (h.gather + h.scatter) * 2;
    return {.forward = forward,
            .backward = (h.grad_gather + h.scatter) * 2 + h.gather * (2 * (regathers + in.gathers_again)) +
                        forward * in.forward_again};
  }
  const SimTime forward = overlapped_pass(in, h.scatter, h.gather, 1);
  const SimTime own = in.keeps_shard ? keeps_shard_backward(in, h) : overlapped_pass(in, h.scatter, h.grad_gather, 2);
  return {.forward = forward,
          .backward =
              own + forward * in.forward_again + overlapped_pass(in, h.scatter, h.gather, 1, true) * in.gathers_again};
}

}  // namespace syncsim::run
