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

namespace {

// One pass's four collectives beside GEMMs of `gemm_scale` times the forward's (2 in backward); with `gathers_only`
// its two all-gathers alone.
SimTime overlapped_pass(const BlockTensorInput& in, SimTime half, double gemm_scale, bool gathers_only = false) {
  std::vector<SimTime> paired(kCollectivesPerPass);
  if (in.gemm_runs.size() == kCollectivesPerPass) {
    paired = in.gemm_runs;
  } else {
    SimTime total;
    for (const SimTime run : in.gemm_runs) total += run;
    std::fill(paired.begin(), paired.end(), SimTime::from_ps(total.ps() / kCollectivesPerPass));
  }
  SimTime out;
  for (int i = 0; i < kCollectivesPerPass; ++i) {
    const SimTime gemm = paired[static_cast<std::size_t>(i)].scaled(gemm_scale);
    const bool gather = i % 2 == 0;
    if (gather || !gathers_only) out += overlapped_collective(half, gemm, overlap_chunks(in.tensor, gather), gather);
  }
  return out;
}
}  // namespace

BlockTensorTime block_tensor_time(const BlockTensorInput& in) {
  // Two all-gathers move what one allreduce moves.
  if (!in.overlap) {
    return {.forward = in.allreduce * 2, .backward = in.allreduce * (2 * (1 + in.forward_again) + in.gathers_again)};
  }
  const SimTime half = SimTime::from_ps(in.allreduce.ps() / 2);
  const SimTime forward = overlapped_pass(in, half, 1);
  return {.forward = forward,
          .backward = overlapped_pass(in, half, 2) + forward * in.forward_again +
                      overlapped_pass(in, half, 1, true) * in.gathers_again};
}

}  // namespace syncsim::run
