#include "syncsim/run/gpu_node.hpp"

#include <fmt/format.h>

#include <cmath>

#include "resolved_scenario.hpp"  // at_value
#include "syncsim/compute/gpu_profile.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim::run {

namespace {

constexpr std::int64_t kDgxDefaultGpus = 8;  // the dgx generator's default GPUs per node
constexpr std::int64_t kDgxMaxGpus = 1024;   // and its most

}  // namespace

TopologySpec with_gpu_node(TopologySpec spec, const GpuSpec& gpu) {
  if (spec.kind != "dgx") return spec;
  const auto fill = [&](const char* key, const std::optional<Bandwidth>& rate, double per_unit, const char* unit) {
    if (rate && !spec.params.contains(key))
      spec.params[key] = fmt::format("{}{}", rate->bytes_per_second / per_unit, unit);
  };
  fill("nvlink_bw", gpu.nvlink_bandwidth, 1e9, "GB/s");
  fill("nic_bw", gpu.node_nic_bandwidth, 1e9 / 8, "Gbps");
  fill("pcie_bw", gpu.node_pcie_bandwidth, 1e9, "GB/s");
  return spec;
}

std::vector<std::string> node_contradictions(const TopologySpec& spec, const std::string& network, const GpuSpec& gpu) {
  std::vector<std::string> out;
  if (spec.kind != "dgx") return out;
  const auto rate = spec.params.find("nvlink_bw");
  if (rate != spec.params.end() && gpu.nvlink_bandwidth) {
    Bandwidth given{};
    try {
      given = parse_bandwidth(rate->second);
    } catch (const InputError&) {
      return out;  // the topology reports a malformed value itself, at its place
    }
    if (std::abs(given.bytes_per_second - gpu.nvlink_bandwidth->bytes_per_second) >
        1e-6 * gpu.nvlink_bandwidth->bytes_per_second) {
      out.push_back(fmt::format(
          "network '{}' gives nvlink_bw={} where {}'s NVLink is {} per direction (the catalog's); its {} points "
          "use the network's {} (leave nvlink_bw out to take each GPU's own)",
          network, rate->second, gpu.name, format_bandwidth(*gpu.nvlink_bandwidth), gpu.name, rate->second));
    }
  }
  const auto gpus = spec.params.find("gpus");
  const std::int64_t per_node = gpus == spec.params.end() ? kDgxDefaultGpus : std::atoll(gpus->second.c_str());
  // Beyond the generator's 1,024 GPUs per node the topology refuses the spec itself.
  const bool plausible = per_node > 0 && per_node <= kDgxMaxGpus;
  if (plausible && gpu.nvlink_domain_gpus && per_node > *gpu.nvlink_domain_gpus &&
      !spec.params.contains("nvlink_domain")) {
    out.push_back(fmt::format("network '{}' puts {} GPUs on one node's NVLink where {}'s NVLink joins {} as sold",
                              network, per_node, gpu.name, *gpu.nvlink_domain_gpus));
  }
  return out;
}

bool profile_runs_kernels(const Scenario& s) {
  return s.cluster.gpu.profile && s.model.kernels && !s.model.efficiency && !s.model.step_time && !s.model.profile;
}

GpuSpec scenario_gpu(const Scenario& s) {
  if (profile_runs_kernels(s) && s.cluster.gpu.inline_spec) {
    return at_value(*s.cluster.gpu.profile, [&] { return measured_kernel_gpu(*s.cluster.gpu.inline_spec); });
  }
  if (s.cluster.gpu.inline_spec) return *s.cluster.gpu.inline_spec;
  return at_value(s.cluster.gpu.name, [&] { return find_gpu(s.cluster.gpu.name.value); });
}

std::shared_ptr<const Topology> node_topology(const Scenario& scenario, const GpuSpec& gpu) {
  TopologySpec node = with_gpu_node(scenario.cluster.topology, gpu);
  if (node.params == scenario.cluster.topology.params) return scenario_topology(scenario);
  Scenario with_node = scenario;
  with_node.cluster.topology = std::move(node);
  return scenario_topology(with_node);
}

std::shared_ptr<const Topology> node_topology(const Scenario& scenario) {
  return node_topology(scenario, scenario_gpu(scenario));
}

}  // namespace syncsim::run
