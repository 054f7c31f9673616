#include "failure_table.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace syncsim::run {

namespace {

// The Llama 3 paper's Table 5 (Dubey et al. 2024, §3.3.4), 419 unexpected interruptions in 54 days, by class:
//   gpu       faulty GPU 148, GPU SRAM 19, GPU system processor 17, silent data corruption 6,
//             GPU thermal interface and sensor 6                                               = 196
//   hbm       GPU HBM3 memory                                                                  =  72
//   nic       NIC                                                                              =   7
//   switch    network switch and cable                                                         =  35
//   host      unplanned host maintenance 32, SSD 3, power supply 3, server chassis 2,
//             IO expansion board 2, CPU 2, system memory 2                                     =  46
//   software  software bug 54, dependency 2, NCCL watchdog timeouts 7                          =  63
constexpr double kLlama3Hours = 54.0 * 24.0;
constexpr double kLlama3Gpus = 16384;
constexpr double kLlama3Hosts = 2048;  // 8 GPUs a Grand Teton server
constexpr double kLlama3Nics = 16384;  // one backend NIC per GPU
// The paper does not count the switches: a dgx topology of 16,384 GPUs (leaf, spine and core of 64-port switches,
// `syncsim topo dgx:nodes=2048,gpus=8`) has 1,280.
constexpr double kLlama3Switches = 1280;

// A GPU without a host is a server of its own.
std::int64_t host_key(const Node& node, std::size_t gpu_index) {
  return node.host ? *node.host : -1 - static_cast<std::int64_t>(gpu_index);
}

}  // namespace

ClusterComponents count_components(const Topology& topology, std::int64_t workers) {
  ClusterComponents c;
  c.gpus = workers;
  std::set<std::int64_t> hosts;
  std::map<std::uint32_t, std::int64_t> host_of_node;  // the job's GPUs and NICs, by node id
  for (std::size_t g = 0; g < static_cast<std::size_t>(workers) && g < topology.gpu_count(); ++g) {
    const NodeId id = topology.gpu(g);
    const std::int64_t key = host_key(topology.node(id), g);
    hosts.insert(key);
    host_of_node[id.value()] = key;
  }
  c.hosts = static_cast<std::int64_t>(hosts.size());
  const auto nodes = static_cast<std::uint32_t>(topology.node_count());
  for (std::uint32_t n = 0; n < nodes; ++n) {
    const Node& node = topology.node(NodeId{n});
    if (node.kind == NodeKind::nic && node.host && hosts.count(*node.host)) {
      ++c.nics;
      host_of_node[n] = *node.host;
    }
  }
  for (std::uint32_t n = 0; n < nodes; ++n) {
    if (topology.node(NodeId{n}).kind != NodeKind::network_switch) continue;
    ++c.switches;
    std::set<std::int64_t> under;
    for (const LinkId l : topology.out_links(NodeId{n})) {
      const auto found = host_of_node.find(topology.link(l).dst.value());
      if (found != host_of_node.end()) under.insert(found->second);
    }
    if (under.empty()) continue;
    ++c.leaf_switches;
    c.nodes_per_leaf = std::max<std::int64_t>(c.nodes_per_leaf, static_cast<std::int64_t>(under.size()));
  }
  return c;
}

FailureRates llama3_failure_rates() {
  return FailureRates{.gpu = 196 / (kLlama3Gpus * kLlama3Hours),
                      .hbm = 72 / (kLlama3Gpus * kLlama3Hours),
                      .nic = 7 / (kLlama3Nics * kLlama3Hours),
                      .network_switch = 35 / (kLlama3Switches * kLlama3Hours),
                      .host = 46 / (kLlama3Hosts * kLlama3Hours),
                      .software = 63 / (kLlama3Gpus * kLlama3Hours)};
}

std::vector<FailureClass> failure_classes(const FailureRates& rates, const ClusterComponents& c) {
  const double leaf_share =
      c.switches > 0 ? static_cast<double>(c.leaf_switches) / static_cast<double>(c.switches) : 0.0;
  return {
      {"gpu", c.gpus, rates.gpu, 1, 1},    {"hbm", c.gpus, rates.hbm, 1, 1},
      {"nic", c.nics, rates.nic, 1, 1},    {"switch", c.switches, rates.network_switch, c.nodes_per_leaf, leaf_share},
      {"host", c.hosts, rates.host, 1, 1}, {"software", c.gpus, rates.software, 0, 1},
  };
}

double expected_interruptions(const std::vector<FailureClass>& classes, double hours) {
  double sum = 0;
  for (const FailureClass& c : classes) sum += c.rate_per_hour * static_cast<double>(c.components) * hours;
  return sum;
}

}  // namespace syncsim::run
