#pragma once
// Per-step latency, launch overhead and protocol efficiency: what a collective costs beyond moving bytes.
//
// Three sources of latency, chosen per run:
//   physical  each transfer pays its route's latency (the topology's link and switch latencies) and bytes move
//             at the full link rate: the textbook alpha-beta model, which the closed-form tests hold exactly.
//   nccl      each transfer pays NCCL's measured per-step latency for its link class, algorithm and protocol
//             (hwLat in NCCL's src/graph/tuning.cc, which already includes the wire), each collective pays NCCL's
//             launch latency (baseLat), and bytes move at the protocol's efficiency (LL carries 8 bytes of data
//             in 16, LL128 120 in 128, ...). The topology's link latencies are not added on top.
//   calibrated per-class latencies and efficiencies fitted from nccl-tests logs (`syncsim calibrate`).
//
// NCCL's constants (NCCL 2.8 src/graph/tuning.cc; microseconds):
//
//   baseLat          LL     LL128  Simple        hwLat per step   LL     LL128  Simple
//   Tree             4.4    4.4    0             NVLink Tree      0.52   1.2    28
//   Ring             3.6   10.0    8.4           NVLink Ring      0.47   1.9     3.4
//                                                PCI    Tree      1.0    1.9    28
//   efficiency (of the link rate)                PCI    Ring      1.0    2.5     5.7
//   Ring   LL 1/4, LL128 0.92, Simple 1          NET    Tree      5.0    8.5    50
//   Tree   LL 0.9/3.8, LL128 0.9*0.915, Simple 0.9                NET    Ring      2.7    4.0     9.6
//
// Algorithms other than tree and NVLS use the ring's constants: their steps are point-to-point sends like a ring's.
//
// NVLS and NVLSTree (NCCL 2.30 src/graph/tuning.cc; nvls_plan.hpp draws them): Simple protocol only; baseLat 0;
// hwLat NVLink 25 us for both, NET 18 (NVLS) and 20.9 (NVLSTree). NCCL's model charges the NVLink hwLat once per
// collective (latency = intraLat [+ 2 log2(nodes) interLat]), not per step, so here it is the launch overhead and
// NVLink transfers add none; each network transfer (NVLSTree's exchange between domains) pays the NET hwLat.
// Bandwidth: nvlsEfficiency of the link rate, by compute capability (0.85 Hopper 9.x, 0.74 Blackwell 10.x and
// newer; a GPU the model does not know gets Hopper's), times (C - 1)/C on C channels, as NCCL's model has it.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/collectives/algorithm.hpp"
#include "syncsim/core/sim_time.hpp"
#include "syncsim/core/units.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim {

enum class Protocol { ll, ll128, simple };
enum class LatencySource { physical, nccl, calibrated };

std::string_view to_string(Protocol protocol);
Protocol parse_protocol(std::string_view text);  // ll | ll128 | simple
// NCCL's name for a link class (nvlink | pci | net): the calibration file's keys.
std::string_view nccl_class_name(LinkKind kind);
LinkKind parse_nccl_class(std::string_view text);  // nvlink | pci | net
std::string_view to_string(LatencySource source);
LatencySource parse_latency_source(std::string_view text);  // physical | nccl

// How transfers of one (algorithm, protocol) are costed: per-class step latency (nullopt: the route's own),
// per-class bandwidth efficiency (the fraction of the route's bottleneck rate a transfer gets when alone), and a
// fixed launch overhead per collective. Arrays are indexed by LinkKind (kLinkKinds).
struct TransferCost {
  std::optional<std::array<SimTime, 3>> step_latency;
  std::array<double, 3> efficiency{1.0, 1.0, 1.0};
  SimTime launch;
  // The channel ramp (calibrated models): a collective smaller than `fill` costs what one of `fill` bytes costs,
  // because NCCL runs it on fewer channels (enqueue.cc: a channel per nThreads x threadThreshold bytes), each as
  // slow as when all run. 0: no ramp.
  Bytes fill{0};
};

// A calibrated model (from `syncsim calibrate`): one TransferCost per regime — e.g. a latency-bound regime fitted
// on small messages and a bandwidth-bound one fitted on large messages — used like NCCL's protocols: every
// collective is simulated in each regime and the cheapest wins.
//
// A regime may hold a size window tied to a link class (a size range where the measured system ran slower than its
// regimes elsewhere predict: an NCCL protocol or algorithm switch, congestion on an untuned fabric): a collective in
// the window that crosses that class runs in the windowed regimes only; every other collective in the regimes
// without a window.
struct RegimeWindow {
  Bytes min_size;  // inclusive
  Bytes max_size;  // inclusive
  LinkKind link_class = LinkKind::network;
};

struct CalibratedModel {
  std::vector<std::string> regime_names;
  std::vector<TransferCost> regimes;
  std::vector<std::optional<RegimeWindow>> windows;  // per regime (empty: none has one)
};

// The regimes a collective of `size` runs in under `model`, given the link classes it crosses (see above).
std::vector<std::size_t> calibrated_regimes(const CalibratedModel& model, Bytes size,
                                            const std::array<bool, 3>& crossed);

// NCCL's per-architecture ceiling on a collective's bus bandwidth, from its tuning model (src/graph/tuning.cc,
// "Various model refinements": busBw = min(busBw, 235) when every GPU is compute capability 8.0 (A100), and
// min(busBw, 370) on Hopper (9.0) in NCCL 2.19 and later). NVIDIA put them there because NVLink on those parts
// delivers about that much to a collective whatever the link count suggests (an A100's 12 NVLinks are 300 GB/s
// on paper; nccl-tests measures ~230). nullopt for other architectures.
std::optional<Bandwidth> nccl_busbw_cap(int compute_capability);
// NCCL's NVLink figure per GPU and direction, the rate its tuning model sizes collectives on (src/graph/topo.h:
// SM80_NVLINK_BW 20 GB/s x 12 links on Ampere, SM90 20.6 x 18 on Hopper, SM100 40.1 x 18 on Blackwell); nullopt
// for older or unknown GPUs. The low-latency protocols (LL, LL128) move flagged lines through the SMs and reach
// their refinement of this figure, not of the datasheet's rate: collective_runner scales their NVLink efficiency
// by it. (Simple reaches more than it on Blackwell racks: 829 GB/s where the figure is 722, docs/accuracy.md.)
std::optional<Bandwidth> nccl_nvlink_figure(int compute_capability);
// The most one channel of NCCL's carries, by architecture, from its tuning model (src/graph/tuning.cc,
// perChMaxRingLL128Bws: 20 GB/s on Volta and Ampere, 36.7 on Hopper, 40.0 on Blackwell; NCCL runs a channel as one
// CTA on one SM). syncsim takes it for what one SM of any SM-driven collective kernel moves (Transformer Engine's
// userbuffers, tensor_overlap.hpp): the only public per-SM figure (userbuffers' own is not published).
Bandwidth nccl_channel_ceiling(int compute_capability);

TransferCost physical_cost();
// Throws InputError for NVLS or NVLSTree with a protocol other than Simple (NCCL runs them on Simple only).
// `ranks` matters to PAT only (NCCL charges it a latency per rank).
TransferCost nccl_cost(Algorithm algorithm, Protocol protocol, std::optional<int> compute_capability = std::nullopt,
                       std::size_t ranks = 0);
// NCCL's NVLS bandwidth factor (src/graph/tuning.cc, 2.30): nvlsEfficiency for the compute capability (Hopper's
// when it is not known) times (channels - 1) / channels; nccl_cost's NVLS rows hold nvlsEfficiency alone.
double nvls_efficiency(std::optional<int> compute_capability, std::uint32_t channels = 0);
// Whether NCCL would run this algorithm with this protocol (NVLS, NVLSTree and PAT: Simple only).
bool runs_protocol(Algorithm algorithm, Protocol protocol);

}  // namespace syncsim
