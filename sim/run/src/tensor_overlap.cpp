#include "tensor_overlap.hpp"

#include <algorithm>

namespace syncsim::run {

namespace {
constexpr int kCollectivesPerPass = 4;        // all-gather, reduce-scatter, all-gather, reduce-scatter
constexpr std::int64_t kPipelinedSplits = 4;  // TE's num_splits for the pipelined reduce-scatters
// NeMo's H100 userbuffers configurations (tensor_overlap.hpp): the SMs each overlap's kernels take.
constexpr double kProjectionScatterSms = 24;  // proj_fprop
constexpr double kFc2ScatterSms = 16;         // fc2_fprop
constexpr double kQkvGatherSms = 4;           // qkv_dgrad
constexpr double kQkvScatterSms = 16;         // qkv_wgrad
constexpr double kFc1GatherSms = 2;           // fc1_dgrad
constexpr double kFc1ScatterSms = 4;          // fc1_wgrad
}  // namespace

SimTime overlapped_collective(SimTime half, SimTime gemm, const OverlapSpec& spec, double gpu_sms) {
  const std::int64_t k = std::max<std::int64_t>(spec.chunks, 1);
  // What runs before the GEMM can hide any of it, and the part of the GEMM the collective may run beside.
  SimTime first;
  SimTime hidden = gemm;
  switch (spec.method) {
    case OverlapMethod::chunked:
    case OverlapMethod::sm_margin:
      first = SimTime::from_ps(half.ps() / k);
      hidden = SimTime::from_ps(gemm.ps() / k * (k - 1));
      break;
    case OverlapMethod::bulk:
      break;
    case OverlapMethod::ring_exchange:
      hidden = SimTime::from_ps(gemm.ps() / k * (k - 1));
      break;
    case OverlapMethod::ring_exchange_pairs:
      // One exchange of t - 1 first; of t/2 steps of two chunks, the first runs beside nothing.
      first = SimTime::from_ps(half.ps() / std::max<std::int64_t>(k - 1, 1));
      hidden = SimTime::from_ps(gemm.ps() / k * std::max<std::int64_t>(k - 2, 0));
      break;
  }
  const SimTime exposed = std::max(first, std::max(SimTime::zero(), half - hidden));
  if (spec.sms <= 0) return exposed;
  // At least one SM left to the GEMM (a configuration's SM count is absolute; a GPU may have fewer).
  const double share = std::min(spec.sms, gpu_sms - 1) / gpu_sms;
  const SimTime slowed = spec.method == OverlapMethod::sm_margin ? gemm : std::min(half, gemm);
  return exposed + slowed.scaled(share / (1 - share));
}

OverlapSpec forward_overlap(int i, std::int64_t tensor, bool transformer_engine) {
  if (i % 2 == 0 || !transformer_engine) return {.method = OverlapMethod::ring_exchange, .chunks = tensor, .sms = 0};
  return {.method = OverlapMethod::sm_margin,
          .chunks = kPipelinedSplits,
          .sms = i == 1 ? kProjectionScatterSms : kFc2ScatterSms};
}

std::vector<BackwardOverlap> backward_overlaps(int run, std::int64_t tensor) {
  if (run % 2 == 1) {
    return {{.gather = true,
             .spec = {.method = OverlapMethod::ring_exchange, .chunks = tensor, .sms = 0},
             .gemm_scale = 2}};
  }
  const bool qkv = run % 4 == 0;
  return {{.gather = true,
           .spec = {.method = OverlapMethod::bulk, .chunks = 1, .sms = qkv ? kQkvGatherSms : kFc1GatherSms},
           .gemm_scale = 1},
          {.gather = false,
           .spec = {.method = OverlapMethod::bulk, .chunks = 1, .sms = qkv ? kQkvScatterSms : kFc1ScatterSms},
           .gemm_scale = 1}};
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
// `gather` each; with `gathers_only` its two all-gathers alone. Megatron's forward runs Transformer Engine's
// methods (keeps_shard), the rest PyTorch's.
SimTime overlapped_pass(const BlockTensorInput& in, SimTime scatter, SimTime gather, double gemm_scale,
                        bool gathers_only = false) {
  const std::vector<SimTime> paired = paired_runs(in);
  SimTime out;
  for (int i = 0; i < kCollectivesPerPass; ++i) {
    const SimTime gemm = paired[static_cast<std::size_t>(i)].scaled(gemm_scale);
    const bool is_gather = i % 2 == 0;
    if (!is_gather && gathers_only) continue;
    out += overlapped_collective(is_gather ? gather : scatter, gemm, forward_overlap(i, in.tensor, in.keeps_shard),
                                 in.gpu_sms);
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
    for (const BackwardOverlap& o : backward_overlaps(i, in.tensor)) {
      const SimTime half = !o.gather ? h.scatter : column ? h.gather : h.grad_gather;
      out += overlapped_collective(half, g.scaled(o.gemm_scale), o.spec, in.gpu_sms);
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
