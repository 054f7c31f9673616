// dgx: DGX-style servers (GPUs on an NVSwitch, one NIC per rail) joined by a rail-optimized leaf/spine network.
//
//   One server (host h), gpus=8, rails=8:
//
//                      nvswitch{h}                    NVLink: nvlink_bw, nvlink_lat
//          /       /        |        \       \        one link each
//       gpu0    gpu1       ...      gpu6    gpu7      (GPU index h*gpus + g)
//         |       |                   |       |       PCIe: pcie_bw, no latency
//       nic0    nic1       ...      nic6    nic7      (NIC index h*rails + r)
//         |       |                   |       |       network: nic_bw, net_lat
//     to the leaf of rail 0, rail 1 ... rail 7
//
//   The fabric (dgx_fabric.hpp), at a small scale: spines shared by the rails' leaves.
//
//       spine0     spine1     ...    spine{u-1}        every leaf to every spine
//
//       leaf0      leaf1      ...    leaf7              leaf r takes NIC r of every server
//      /  |  \    /  |  \           /  |  \           one link per server
//     h0  h1 ..  h0  h1 ..          h0  h1 ..
//
// GPU g of a node uses NIC g*rails/gpus of that node, so rails < gpus shares a NIC among neighbouring GPUs.
// A rail needs ceil(nodes / (radix/2)) leaves when its nodes exceed a leaf's radix/2 down ports; leaf l of a
// rail serves a contiguous group of nodes. Every network link runs at nic_bw; a leaf with d nodes below it has
// u = ceil(d / oversub) uplinks, one to each of u spines, so one flow between rails runs at full NIC speed and
// oversubscription shows only when many flows leave a leaf at once (as in a real rail-optimized fabric). Routes: same
// node GPU->NVSwitch->GPU; same rail GPU->NIC->leaf->NIC->GPU; other rails via a spine. Where the spines cannot take
// every leaf at the radix, each rail becomes a plane of its own, in pods joined by a core tier (dgx_fabric.hpp), and
// traffic between rails moves over NVLink to the destination's rail first (PXN, router.hpp).
//
// The fabric is built even for nodes=1 (where no route uses it), so a topology's shape never depends on whether
// its network happens to be needed.
//
// NVLink domains across nodes (nvlink_domain = t > 1): t consecutive nodes share one NVSwitch fabric, as the trays
// of a GB200 NVL72 rack (18 trays of 4 GPUs, NVLink switches between them, 900 GB/s per GPU per direction) do:
//
//                 nvswitch{d}                         one per domain, GPUs of nodes d*t .. d*t+t-1 on it
//        /     |      |      \      \    (a comment line must not end in a backslash)
//     gpu0 .. gpu3  gpu4 .. gpu7 ..  (node = tray = host, as nccl-tests reports hosts)
//       |              |
//     NICs of their own node, on the rails as above: the racks join over the network.
//
// A route between two GPUs of one domain is GPU->NVSwitch->GPU (two hops, at nvlink_bw) whichever trays they sit
// in; between domains it takes the rails. The NVSwitch of a domain of several nodes belongs to no one host.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "dgx_fabric.hpp"
#include "generators.hpp"

namespace syncsim::topology_detail {

namespace {
// Defaults: a DGX H100-like server (NVLink 4 per-GPU bandwidth, ConnectX-7 class NICs, PCIe Gen5 x16).
constexpr std::int64_t kDefaultGpusPerNode = 8;
constexpr double kDefaultNvlinkGBps = 300;
constexpr double kDefaultNvlinkLatencyNs = 700;
constexpr double kDefaultNicGbps = 200;
constexpr double kDefaultNetLatencyUs = 2;
constexpr double kDefaultPcieGBps = 64;
constexpr std::int64_t kDefaultRadix = 64;
}  // namespace

Topology build_dgx(const SpecParams& params) {
  const std::int64_t nodes = count_in_range(params, "nodes", std::nullopt, 1, kMaxGpus);
  const std::int64_t gpus = count_in_range(params, "gpus", kDefaultGpusPerNode, 1, 1024);
  if (nodes * gpus < 2) params.fail("gpus", "a topology needs at least 2 GPUs (nodes * gpus)");
  if (nodes * gpus > kMaxGpus) params.fail("nodes", fmt::format("nodes * gpus must be at most {}", kMaxGpus));
  const Bandwidth nvlink_bw = params.bandwidth("nvlink_bw", Bandwidth::from_gb_per_s(kDefaultNvlinkGBps));
  const SimTime nvlink_lat = params.duration("nvlink_lat", SimTime::from_ns(kDefaultNvlinkLatencyNs));
  const Bandwidth nic_bw = params.bandwidth("nic_bw", Bandwidth::from_gbps(kDefaultNicGbps));
  const SimTime net_lat = params.duration("net_lat", SimTime::from_us(kDefaultNetLatencyUs));
  const Bandwidth pcie_bw = params.bandwidth("pcie_bw", Bandwidth::from_gb_per_s(kDefaultPcieGBps));
  const std::int64_t rails = count_in_range(params, "rails", gpus, 1, gpus);
  const double oversub = params.number("oversub", 1.0);
  if (!(oversub >= 1.0)) params.fail("oversub", fmt::format("must be a ratio of at least 1, got {}", oversub));
  const double core_oversub = params.number("core_oversub", 1.0);
  if (!(core_oversub >= 1.0)) {
    params.fail("core_oversub", fmt::format("must be a ratio of at least 1, got {}", core_oversub));
  }
  const std::int64_t radix = count_in_range(params, "radix", kDefaultRadix, 2, 1024);
  if (radix % 2 != 0) params.fail("radix", fmt::format("must be even (half the ports face down), got {}", radix));
  const std::int64_t domain = count_in_range(params, "nvlink_domain", 1, 1, nodes);
  if (nodes % domain != 0) {
    params.fail("nvlink_domain",
                fmt::format("{} nodes do not split into NVLink domains of {} nodes (nvlink_domain must divide nodes)",
                            nodes, domain));
  }

  const SwitchReduction nvls = params.switch_reduction("nvls", SwitchReduction::automatic);
  const SwitchReduction sharp = params.switch_reduction("sharp", SwitchReduction::off);

  const DgxFabricShape fabric = plan_dgx_fabric(params, nodes, rails, radix, oversub, core_oversub);

  Topology topology;
  // GPUs first, so node id == GPU index and GPU h*gpus+g is GPU g of node h.
  std::vector<NodeId> gpu_ids;
  for (std::int64_t h = 0; h < nodes; ++h) {
    const std::vector<NodeId> on_node = add_gpus(topology, gpus, static_cast<int>(h));
    gpu_ids.insert(gpu_ids.end(), on_node.begin(), on_node.end());
  }
  const std::vector<NodeId> leaves = add_dgx_fabric(topology, fabric, nic_bw, net_lat, sharp);
  NodeId nvswitch;
  for (std::int64_t h = 0; h < nodes; ++h) {
    const int host = static_cast<int>(h);
    // Added with the first node of its domain, so that with one node per domain (the default) every node and link
    // keeps the id it always had.
    if (h % domain == 0) {
      const std::optional<int> owner = domain == 1 ? std::optional<int>(host) : std::nullopt;
      nvswitch = topology.add_node(
          Node{fmt::format("nvswitch{}", h / domain), NodeKind::nvswitch, SimTime::zero(), owner, nvls});
    }
    std::vector<NodeId> nics;
    for (std::int64_t r = 0; r < rails; ++r) {
      const NodeId nic =
          topology.add_node(Node{fmt::format("nic{}", h * rails + r), NodeKind::nic, SimTime::zero(), host});
      const NodeId leaf = leaves[static_cast<std::size_t>(r * fabric.leaves_per_rail + h / fabric.nodes_per_leaf)];
      topology.add_duplex_link(nic, leaf, nic_bw, net_lat, LinkKind::network);
      nics.push_back(nic);
    }
    for (std::int64_t g = 0; g < gpus; ++g) {
      const NodeId gpu = gpu_ids[static_cast<std::size_t>(h * gpus + g)];
      topology.add_duplex_link(gpu, nvswitch, nvlink_bw, nvlink_lat, LinkKind::nvlink);
      topology.add_duplex_link(gpu, nics[static_cast<std::size_t>(g * rails / gpus)], pcie_bw, SimTime::zero(),
                               LinkKind::pcie);
    }
  }
  return topology;
}

}  // namespace syncsim::topology_detail
