#include "syncsim/collectives/latency_model.hpp"

#include <fmt/format.h>

#include "syncsim/collectives/collnet_plan.hpp"
#include "syncsim/collectives/nvls_plan.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {
// NCCL 2.8, src/graph/tuning.cc. [tree=0 | ring=1][LL, LL128, Simple], microseconds.
constexpr double kBaseLatencyUs[2][3] = {{4.4, 4.4, 0.0}, {3.6, 10.0, 8.4}};
// [NVLink, PCI, NET] (LinkKind's order)[tree | ring][LL, LL128, Simple], microseconds per step.
constexpr double kStepLatencyUs[3][2][3] = {
    {{0.52, 1.2, 28.0}, {0.47, 1.9, 3.4}},
    {{1.0, 1.9, 28.0}, {1.0, 2.5, 5.7}},
    {{5.0, 8.5, 50.0}, {2.7, 4.0, 9.6}},
};
// Fraction of the link rate each protocol delivers (NCCL's busBw refinements in the same file).
constexpr double kEfficiency[2][3] = {{0.9 / 3.8, 0.9 * 0.915, 0.9}, {1.0 / 4.0, 0.92, 1.0}};

// NCCL 2.30, src/graph/tuning.cc: NVLS and NVLSTree, Simple only. hwLat NVLink (charged once, as the launch) and
// NET (per network transfer), microseconds; nvlsEfficiency by generation.
constexpr double kNvlsNvlinkLatencyUs = 25.0;
constexpr double kNvlsNetLatencyUs = 18.0;
constexpr double kNvlsTreeNetLatencyUs = 20.9;
constexpr double kNvlsEfficiencyHopper = 0.85;
constexpr double kNvlsEfficiencyBlackwell = 0.74;

TransferCost nvls_cost(Algorithm algorithm, std::optional<int> compute_capability) {
  TransferCost cost;
  const double net = algorithm == Algorithm::nvls ? kNvlsNetLatencyUs : kNvlsTreeNetLatencyUs;
  cost.step_latency = std::array<SimTime, 3>{SimTime::zero(), SimTime::zero(), SimTime::from_us(net)};
  cost.efficiency.fill(nvls_efficiency(compute_capability));
  cost.launch = SimTime::from_us(kNvlsNvlinkLatencyUs);
  return cost;
}

// NCCL 2.30, src/graph/tuning.cc: CollNetDirect and CollNetChain, Simple only, no baseLat. hwLat NVLink (and PCI) per
// intra-node step; NET once per round trip in NCCL's model (interLat), here half on the way up, half down.
constexpr double kCollNetDirectLatencyUs[3] = {3.7, 3.7, 31.0};
constexpr double kCollNetChainLatencyUs[3] = {2.8, 2.8, 30.0};

TransferCost collnet_cost(Algorithm algorithm) {
  const double* us = algorithm == Algorithm::collnet_direct ? kCollNetDirectLatencyUs : kCollNetChainLatencyUs;
  TransferCost cost;
  cost.step_latency =
      std::array<SimTime, 3>{SimTime::from_us(us[0]), SimTime::from_us(us[1]), SimTime::from_us(us[2] / 2)};
  return cost;
}

// NCCL 2.30, src/graph/tuning.cc: PAT, Simple only. baseLat 8 us; per step the network's hwLat (14 us, the tree's
// with one GPU per node) over 3.5, as NCCL charges its log2(nodes) steps, and NVLink/PCI 4 us; plus NCCL's "still a
// linear part" of 2.8 us per rank, paid once; its busBw refinement 0.75 as the protocol's efficiency.
constexpr double kPatBaseLatencyUs = 8.0;
constexpr double kPatStepLatencyUs[3] = {4.0, 4.0, 14.0 / 3.5};
constexpr double kPatPerRankLatencyUs = 2.8;
constexpr double kPatEfficiency = 0.75;

TransferCost pat_cost(std::size_t ranks) {
  TransferCost cost;
  cost.step_latency =
      std::array<SimTime, 3>{SimTime::from_us(kPatStepLatencyUs[0]), SimTime::from_us(kPatStepLatencyUs[1]),
                             SimTime::from_us(kPatStepLatencyUs[2])};
  cost.efficiency.fill(kPatEfficiency);
  cost.launch = SimTime::from_us(kPatBaseLatencyUs + kPatPerRankLatencyUs * static_cast<double>(ranks));
  return cost;
}

int algorithm_row(Algorithm algorithm) {
  return algorithm == Algorithm::tree ? 0 : 1;
}
}  // namespace

std::string_view to_string(Protocol protocol) {
  switch (protocol) {
    case Protocol::ll:
      return "ll";
    case Protocol::ll128:
      return "ll128";
    case Protocol::simple:
      return "simple";
  }
  return "?";
}

Protocol parse_protocol(std::string_view text) {
  if (text == "ll" || text == "LL") return Protocol::ll;
  if (text == "ll128" || text == "LL128") return Protocol::ll128;
  if (text == "simple" || text == "Simple") return Protocol::simple;
  throw InputError(fmt::format("unknown protocol '{}': expected ll, ll128, simple or auto", text));
}

std::string_view nccl_class_name(LinkKind kind) {
  switch (kind) {
    case LinkKind::nvlink:
      return "nvlink";
    case LinkKind::pcie:
      return "pci";
    case LinkKind::network:
      return "net";
  }
  return "?";
}

std::vector<std::size_t> calibrated_regimes(const CalibratedModel& model, Bytes size,
                                            const std::array<bool, 3>& crossed) {
  std::vector<std::size_t> windowed;
  std::vector<std::size_t> plain;
  for (std::size_t r = 0; r < model.regimes.size(); ++r) {
    const std::optional<RegimeWindow> window = r < model.windows.size() ? model.windows[r] : std::nullopt;
    if (!window) {
      plain.push_back(r);
    } else if (size >= window->min_size && size <= window->max_size &&
               crossed[static_cast<std::size_t>(window->link_class)]) {
      windowed.push_back(r);
    }
  }
  return windowed.empty() ? plain : windowed;
}

LinkKind parse_nccl_class(std::string_view text) {
  for (const LinkKind kind : kLinkKinds) {
    if (text == nccl_class_name(kind)) return kind;
  }
  throw InputError(fmt::format("unknown link class '{}': expected nvlink, pci or net", text));
}

std::string_view to_string(LatencySource source) {
  switch (source) {
    case LatencySource::physical:
      return "physical";
    case LatencySource::nccl:
      return "nccl";
    case LatencySource::calibrated:
      return "calibrated";
  }
  return "?";
}

LatencySource parse_latency_source(std::string_view text) {
  if (text == "nccl") return LatencySource::nccl;
  if (text == "physical") return LatencySource::physical;
  throw InputError(fmt::format("unknown latency model '{}': expected nccl or physical", text));
}

std::optional<Bandwidth> nccl_busbw_cap(int compute_capability) {
  if (compute_capability == 80) return Bandwidth::from_gb_per_s(235);
  if (compute_capability == 90) return Bandwidth::from_gb_per_s(370);
  return std::nullopt;
}

std::optional<Bandwidth> nccl_nvlink_figure(int compute_capability) {
  if (compute_capability >= 100) return Bandwidth::from_gb_per_s(40.1 * 18);
  if (compute_capability >= 90) return Bandwidth::from_gb_per_s(20.6 * 18);
  if (compute_capability >= 80) return Bandwidth::from_gb_per_s(20.0 * 12);
  return std::nullopt;
}

Bandwidth nccl_channel_ceiling(int compute_capability) {
  if (compute_capability >= 100) return Bandwidth::from_gb_per_s(40.0);
  if (compute_capability >= 90) return Bandwidth::from_gb_per_s(36.7);
  return Bandwidth::from_gb_per_s(20.0);
}

TransferCost physical_cost() {
  return {};
}

double nvls_efficiency(std::optional<int> compute_capability, std::uint32_t channels) {
  const double generation = compute_capability && *compute_capability >= kBlackwellComputeCapability
                                ? kNvlsEfficiencyBlackwell
                                : kNvlsEfficiencyHopper;
  if (channels == 0) return generation;
  return generation * (channels - 1) / channels;
}

bool runs_protocol(Algorithm algorithm, Protocol protocol) {
  return !(is_nvls(algorithm) || is_collnet(algorithm) || algorithm == Algorithm::pat) || protocol == Protocol::simple;
}

TransferCost nccl_cost(Algorithm algorithm, Protocol protocol, std::optional<int> compute_capability,
                       std::size_t ranks) {
  if (algorithm == Algorithm::pat) {
    if (protocol != Protocol::simple) {
      throw InputError(fmt::format("pat runs the Simple protocol only (NCCL's PAT), not {}", to_string(protocol)));
    }
    return pat_cost(ranks);
  }
  if (is_collnet(algorithm)) {
    if (protocol != Protocol::simple) {
      throw InputError(fmt::format("{} runs the Simple protocol only (NCCL's CollNet), not {}", to_string(algorithm),
                                   to_string(protocol)));
    }
    return collnet_cost(algorithm);
  }
  if (is_nvls(algorithm)) {
    if (protocol != Protocol::simple) {
      throw InputError(fmt::format("{} runs the Simple protocol only (NCCL's NVLS), not {}", to_string(algorithm),
                                   to_string(protocol)));
    }
    return nvls_cost(algorithm, compute_capability);
  }
  const int a = algorithm_row(algorithm);
  const auto p = static_cast<int>(protocol);
  TransferCost cost;
  std::array<SimTime, 3> steps{};
  for (int c = 0; c < 3; ++c) steps[static_cast<std::size_t>(c)] = SimTime::from_us(kStepLatencyUs[c][a][p]);
  cost.step_latency = steps;
  cost.efficiency.fill(kEfficiency[a][p]);
  cost.launch = SimTime::from_us(kBaseLatencyUs[a][p]);
  return cost;
}

}  // namespace syncsim
