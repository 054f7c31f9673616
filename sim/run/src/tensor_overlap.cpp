#include "tensor_overlap.hpp"

#include <algorithm>
#include <array>

namespace syncsim::run {

namespace {
constexpr int kCollectivesPerPass = 4;  // all-gather, reduce-scatter, all-gather, reduce-scatter
// Transformer Engine's defaults (initialize_ub, v1.8) for what a configuration leaves out.
constexpr std::int64_t kDefaultSplits = 4;
constexpr double kDefaultSms = 16;
constexpr double kDefaultRingSms = 1;  // a ring's SMs when its copies do not run on the copy engines
// The forward's collectives by GEMM run (QKV, projection, FC1, FC2), in TE's names.
constexpr std::array<UbLayer, 4> kForwardLayers{UbLayer::qkv_fprop, UbLayer::proj_fprop, UbLayer::fc1_fprop,
                                                UbLayer::fc2_fprop};
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

OverlapSpec userbuffers_overlap(UbLayer layer, const UserbuffersConfig& config, std::int64_t tensor) {
  const UbLayerSettings s = config[layer].value_or(UbLayerSettings{});
  switch (s.method.value_or(default_method(layer))) {
    case UbMethod::ring_exchange:
      // Pairs need an even group: NeMo's configuration under `true` runs its ring whole on an odd one (a given
      // configuration is refused there, LayoutCommunication).
      return {.method = s.aggregate.value_or(false) && tensor % 2 == 0 ? OverlapMethod::ring_exchange_pairs
                                                                       : OverlapMethod::ring_exchange,
              .chunks = tensor,
              .sms = s.use_ce.value_or(true) ? 0 : static_cast<double>(s.num_sm.value_or(kDefaultRingSms)),
              .fp8_buffer = scatters(layer) && s.fp8_buf.value_or(false)};
    case UbMethod::pipeline:
      return {.method = s.set_sm_margin.value_or(false) ? OverlapMethod::sm_margin : OverlapMethod::chunked,
              .chunks = s.num_splits.value_or(kDefaultSplits),
              .sms = static_cast<double>(s.num_sm.value_or(kDefaultSms)),
              .fp8_buffer = s.fp8_buf.value_or(false)};
    case UbMethod::bulk:
      break;
  }
  return {.method = OverlapMethod::bulk, .chunks = 1, .sms = static_cast<double>(s.num_sm.value_or(kDefaultSms))};
}

OverlapSpec forward_overlap(int i, std::int64_t tensor, const UserbuffersConfig* userbuffers) {
  if (!userbuffers) return {.method = OverlapMethod::ring_exchange, .chunks = tensor, .sms = 0};
  return userbuffers_overlap(kForwardLayers[static_cast<std::size_t>(i % kCollectivesPerPass)], *userbuffers, tensor);
}

std::vector<BackwardOverlap> backward_overlaps(int run, std::int64_t tensor, const UserbuffersConfig& userbuffers) {
  const auto spec = [&](UbLayer layer) { return userbuffers_overlap(layer, userbuffers, tensor); };
  switch (run % kCollectivesPerPass) {
    case 0:
      return {{.gather = true, .spec = spec(UbLayer::qkv_dgrad), .gemm_scale = 1},
              {.gather = false, .spec = spec(UbLayer::qkv_wgrad), .gemm_scale = 1}};
    case 1:
      return {{.gather = true, .spec = spec(UbLayer::proj_dgrad), .gemm_scale = 2}};
    case 2:
      return {{.gather = true, .spec = spec(UbLayer::fc1_dgrad), .gemm_scale = 1},
              {.gather = false, .spec = spec(UbLayer::fc1_wgrad), .gemm_scale = 1}};
    default:
      return {{.gather = true, .spec = spec(UbLayer::fc2_dgrad), .gemm_scale = 2}};
  }
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

// Megatron's userbuffers configuration (keeps_shard), nullptr for PyTorch's.
const UserbuffersConfig* transformer_engine(const BlockTensorInput& in) {
  if (!in.keeps_shard) return nullptr;
  return in.userbuffers ? in.userbuffers : &nemo_h100_userbuffers();
}

// One collective each way, half its allreduce: the reduce-scatters', the inputs' all-gathers', the output gradients'.
struct Halves {
  SimTime scatter;
  SimTime gather;
  SimTime grad_gather;
};

// One pass's four collectives beside GEMMs of `gemm_scale` times the forward's (2 in backward), its all-gathers of
// `gather` each; with `gathers_only` its two all-gathers alone. Megatron's forward runs Transformer Engine's
// methods (keeps_shard), its reduce-scatters of an FP8 userbuffer moving the FP8 output; the rest PyTorch's.
SimTime overlapped_pass(const BlockTensorInput& in, SimTime scatter, SimTime gather, double gemm_scale,
                        bool gathers_only = false) {
  const std::vector<SimTime> paired = paired_runs(in);
  SimTime out;
  for (int i = 0; i < kCollectivesPerPass; ++i) {
    const SimTime gemm = paired[static_cast<std::size_t>(i)].scaled(gemm_scale);
    const bool is_gather = i % 2 == 0;
    if (!is_gather && gathers_only) continue;
    const OverlapSpec spec = forward_overlap(i, in.tensor, transformer_engine(in));
    const SimTime half = is_gather                                     ? gather
                         : spec.fp8_buffer && in.fp8_scatter_allreduce ? half_of(*in.fp8_scatter_allreduce)
                                                                       : scatter;
    out += overlapped_collective(half, gemm, spec, in.gpu_sms);
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
    for (const BackwardOverlap& o : backward_overlaps(i, in.tensor, *transformer_engine(in))) {
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
