#include "tensor_overlap.hpp"

#include <algorithm>
#include <array>
#include <limits>

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

SimTime one_sm_time(Bytes message, Bandwidth per_sm) {
  if (per_sm.bytes_per_second <= 0) return SimTime::zero();
  return transfer_time(message, per_sm);
}

bool is_ring(OverlapMethod method) {
  return method == OverlapMethod::ring_exchange || method == OverlapMethod::ring_exchange_pairs;
}

std::size_t gemm_run(UbLayer layer) {
  switch (layer) {
    case UbLayer::qkv_fprop:
    case UbLayer::qkv_dgrad:
    case UbLayer::qkv_wgrad:
      return 0;
    case UbLayer::proj_fprop:
    case UbLayer::proj_dgrad:
      return 1;
    case UbLayer::fc1_fprop:
    case UbLayer::fc1_dgrad:
    case UbLayer::fc1_wgrad:
      return 2;
    case UbLayer::fc2_fprop:
    case UbLayer::fc2_dgrad:
      return 3;
  }
  return 0;
}

bool forward_layer(UbLayer layer) {
  return std::ranges::find(kForwardLayers, layer) != kForwardLayers.end();
}

std::int64_t gemm_pieces(const OverlapSpec& spec) {
  switch (spec.method) {
    case OverlapMethod::bulk:
      return 1;
    case OverlapMethod::ring_exchange_pairs:
      return std::max<std::int64_t>(spec.chunks / 2, 1);
    case OverlapMethod::chunked:
    case OverlapMethod::sm_margin:
    case OverlapMethod::ring_exchange:
      break;
  }
  return std::max<std::int64_t>(spec.chunks, 1);
}

SimTime sm_share_time(SimTime whole, const OverlapSpec& spec, std::int64_t tensor, bool multicast) {
  if (tensor < 2) return SimTime::zero();
  const std::int64_t chunks = is_ring(spec.method) || !multicast ? tensor - 1 : 1;
  return SimTime::from_ps(whole.ps() / tensor * chunks);
}

OverlapCost overlap_cost(SimTime half, SimTime gemm, const OverlapSpec& spec, double gpu_sms, SimTime one_sm) {
  const std::int64_t k = std::max<std::int64_t>(spec.chunks, 1);
  // At least one SM left to the GEMM: a scenario's configuration that leaves none is refused (userbuffers_sms_error),
  // this keeps a direct caller's absurd count finite.
  const double sms = std::min(spec.sms, gpu_sms - 1);
  if (sms > 0 && one_sm > SimTime::zero()) half = std::max(half, one_sm.scaled(1 / sms));
  // What runs before or after the GEMM, beside nothing, and the part of the GEMM the rest may run beside.
  SimTime first;
  SimTime beside = gemm;
  switch (spec.method) {
    case OverlapMethod::chunked:
    case OverlapMethod::sm_margin:
      first = SimTime::from_ps(half.ps() / k);
      beside = SimTime::from_ps(gemm.ps() / k * (k - 1));
      break;
    case OverlapMethod::bulk:
      break;
    case OverlapMethod::ring_exchange:
      beside = SimTime::from_ps(gemm.ps() / k * (k - 1));
      break;
    case OverlapMethod::ring_exchange_pairs:
      // One exchange of t - 1 first; of t/2 steps of two chunks, the first runs beside nothing.
      first = SimTime::from_ps(half.ps() / std::max<std::int64_t>(k - 1, 1));
      beside = SimTime::from_ps(gemm.ps() / k * std::max<std::int64_t>(k - 2, 0));
      break;
  }
  // While the collective's kernels hold their SMs the GEMM runs at (S - n)/S of its rate: under set_sm_margin all of
  // it, otherwise only while they overlap, the rest of the GEMM on every SM.
  SimTime sm_cost;
  if (sms > 0) {
    const double share = sms / gpu_sms;
    if (spec.method == OverlapMethod::sm_margin) {
      sm_cost = gemm.scaled(share / (1 - share));
      beside = beside.scaled(1 / (1 - share));
    } else {
      sm_cost = std::min(half - first, beside.scaled(1 / (1 - share))).scaled(share);
      beside += sm_cost;
    }
  }
  const SimTime exposed = first + std::max(SimTime::zero(), half - first - beside);
  return {.collective = half, .exposed = exposed, .sm_cost = sm_cost};
}

SimTime overlapped_collective(SimTime half, SimTime gemm, const OverlapSpec& spec, double gpu_sms, SimTime one_sm) {
  const OverlapCost cost = overlap_cost(half, gemm, spec, gpu_sms, one_sm);
  return cost.exposed + cost.sm_cost;
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
      return {{.layer = UbLayer::qkv_dgrad, .gather = true, .spec = spec(UbLayer::qkv_dgrad), .gemm_scale = 1},
              {.layer = UbLayer::qkv_wgrad, .gather = false, .spec = spec(UbLayer::qkv_wgrad), .gemm_scale = 1}};
    case 1:
      return {{.layer = UbLayer::proj_dgrad, .gather = true, .spec = spec(UbLayer::proj_dgrad), .gemm_scale = 2}};
    case 2:
      return {{.layer = UbLayer::fc1_dgrad, .gather = true, .spec = spec(UbLayer::fc1_dgrad), .gemm_scale = 1},
              {.layer = UbLayer::fc1_wgrad, .gather = false, .spec = spec(UbLayer::fc1_wgrad), .gemm_scale = 1}};
    default:
      return {{.layer = UbLayer::fc2_dgrad, .gather = true, .spec = spec(UbLayer::fc2_dgrad), .gemm_scale = 2}};
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

// A collective's half-allreduce time and what one SM takes to move the rank's share of it.
struct Half {
  SimTime time;
  SimTime one_sm;
};

// Collective `layer` (TE's name) beside `gemm`, recorded in `log` when there is one. `multicast`: whether its
// kernels multicast (TE has no multicast kernel for its FP8 userbuffer's reduce-scatter).
SimTime overlapped(const Half& half, SimTime gemm, const OverlapSpec& spec, const BlockTensorInput& in, bool multicast,
                   UbLayer layer, std::vector<LayerOverlap>* log) {
  const SimTime one_sm = sm_share_time(half.one_sm, spec, in.tensor, multicast);
  const OverlapCost cost = overlap_cost(half.time, gemm, spec, in.gpu_sms, one_sm);
  if (log) {
    log->push_back({.layer = layer, .spec = spec, .own_rate = half.time, .one_sm = one_sm, .gemm = gemm, .cost = cost});
  }
  return cost.exposed + cost.sm_cost;
}

// One collective each way: the reduce-scatters', the inputs' all-gathers', the output gradients', the FP8
// userbuffer's reduce-scatters'.
struct Halves {
  Half scatter;
  Half gather;
  Half grad_gather;
  Half fp8_scatter;
};

// One pass's four collectives beside GEMMs of `gemm_scale` times the forward's (2 in backward), its all-gathers of
// `gather` each; with `gathers_only` its two all-gathers alone. Megatron's forward runs Transformer Engine's
// methods (keeps_shard), its reduce-scatters of an FP8 userbuffer moving the FP8 output; the rest PyTorch's.
SimTime overlapped_pass(const BlockTensorInput& in, const Halves& h, const Half& gather, double gemm_scale,
                        bool gathers_only = false, std::vector<LayerOverlap>* log = nullptr) {
  const std::vector<SimTime> paired = paired_runs(in);
  SimTime out;
  for (int i = 0; i < kCollectivesPerPass; ++i) {
    const SimTime gemm = paired[static_cast<std::size_t>(i)].scaled(gemm_scale);
    const bool is_gather = i % 2 == 0;
    if (!is_gather && gathers_only) continue;
    const OverlapSpec spec = forward_overlap(i, in.tensor, transformer_engine(in));
    const bool fp8_scatter = !is_gather && spec.fp8_buffer && in.fp8_scatter_allreduce;
    const Half& half = is_gather ? gather : fp8_scatter ? h.fp8_scatter : h.scatter;
    out += overlapped(half, gemm, spec, in, in.multicast && !fp8_scatter, kForwardLayers[static_cast<std::size_t>(i)],
                      log);
  }
  return out;
}

// Megatron's backward (above): per column-parallel run an all-gather (of its input again) and a reduce-scatter beside
// one GEMM each, per row-parallel run an all-gather (of the output gradient) beside both.
SimTime keeps_shard_backward(const BlockTensorInput& in, const Halves& h, std::vector<LayerOverlap>* log = nullptr) {
  const std::vector<SimTime> paired = paired_runs(in);
  SimTime out;
  for (int i = 0; i < kCollectivesPerPass; ++i) {
    const SimTime g = paired[static_cast<std::size_t>(i)];
    const bool column = i % 2 == 0;
    for (const BackwardOverlap& o : backward_overlaps(i, in.tensor, *transformer_engine(in))) {
      const Half& half = !o.gather ? h.scatter : column ? h.gather : h.grad_gather;
      out += overlapped(half, g.scaled(o.gemm_scale), o.spec, in, in.multicast, o.layer, log);
    }
  }
  return out;
}

// Each collective each way (an all-gather and a reduce-scatter move what one allreduce moves).
Halves halves(const BlockTensorInput& in) {
  return {.scatter = {half_of(in.allreduce), in.one_sm.scatter},
          .gather = {half_of(in.gather_allreduce.value_or(in.allreduce)), in.one_sm.gather},
          .grad_gather = {half_of(in.grad_gather_allreduce.value_or(in.allreduce)), in.one_sm.grad_gather},
          .fp8_scatter = {half_of(in.fp8_scatter_allreduce.value_or(in.allreduce)), in.one_sm.fp8_scatter}};
}
}  // namespace

std::vector<std::vector<std::size_t>> block_gemm_runs(const std::vector<Layer>& layers,
                                                      std::pair<std::size_t, std::size_t> block) {
  std::vector<std::vector<std::size_t>> runs;
  bool in_run = false;
  for (std::size_t l = block.first; l < block.second && l < layers.size(); ++l) {
    const bool gemm = layers[l].kind == LayerKind::gemm;
    if (gemm && !in_run) runs.emplace_back();
    if (gemm) runs.back().push_back(l);
    in_run = gemm;
  }
  return runs;
}

Bytes userbuffers_bytes(const UserbuffersConfig& config, std::int64_t tensor, bool scaled, double elements) {
  double total = 0;
  for (std::size_t i = 0; i < kUbLayers; ++i) {
    const auto layer = static_cast<UbLayer>(i);
    const OverlapSpec spec = userbuffers_overlap(layer, config, tensor);
    const bool scatter = scatters(layer);
    // userbuffers_overlap's fp8_buffer is TE's fp8_buf on the reduce-scatters that have one (proj_fprop, fc2_fprop).
    const double buffer = elements * (scaled && (!scatter || spec.fp8_buffer) ? 1 : 2);
    const auto t = static_cast<double>(tensor);
    total += is_ring(spec.method) && scatter ? buffer / t * (2 * t - 1) : buffer;
  }
  // Absurd sizes saturate, as the memory check's own sums do (then nothing fits).
  constexpr double kPastInt64 = 9.2e18;
  return Bytes{total >= kPastInt64 ? std::numeric_limits<std::int64_t>::max() : static_cast<std::int64_t>(total)};
}

std::vector<LayerOverlap> userbuffers_layers(const BlockTensorInput& in) {
  std::vector<LayerOverlap> log;
  if (!in.overlap || !in.keeps_shard) return log;
  const Halves h = halves(in);
  overlapped_pass(in, h, h.gather, 1, false, &log);
  keeps_shard_backward(in, h, &log);
  return log;
}

BlockTensorTime block_tensor_time(const BlockTensorInput& in) {
  const std::int64_t regathers = in.keeps_shard ? 1 : 0;
  const SimTime gather_allreduce = in.gather_allreduce.value_or(in.allreduce);
  const SimTime grad_gather_allreduce = in.grad_gather_allreduce.value_or(in.allreduce);
  const bool one_type = gather_allreduce == in.allreduce && grad_gather_allreduce == in.allreduce;
  const Halves h = halves(in);
  if (!in.overlap && one_type) {
    return {.forward = in.allreduce * 2,
            .backward = in.allreduce * (2 * (1 + in.forward_again) + in.gathers_again + regathers)};
  }
  if (!in.overlap) {
    // Each pass: two all-gathers and two reduce-scatters; the inputs' gathers again (Megatron's, selective_op's).
    const SimTime forward = (h.gather.time + h.scatter.time) * 2;
    return {.forward = forward,
            .backward = (h.grad_gather.time + h.scatter.time) * 2 +
                        h.gather.time * (2 * (regathers + in.gathers_again)) + forward * in.forward_again};
  }
  const SimTime forward = overlapped_pass(in, h, h.gather, 1);
  const SimTime own = in.keeps_shard ? keeps_shard_backward(in, h) : overlapped_pass(in, h, h.grad_gather, 2);
  return {.forward = forward,
          .backward = own + forward * in.forward_again + overlapped_pass(in, h, h.gather, 1, true) * in.gathers_again};
}

}  // namespace syncsim::run
