// NCCL topology XML import: xml_reader.hpp does the syntax; this file maps NCCL's elements onto a Topology the way
// NCCL's ncclTopoGetSystemFromXml (src/graph/topo.cc) builds its own graph from the same file.
//
// Two passes: the first walks the tree collecting GPUs, other nodes and links (NVLinks last, once every GPU's busid
// is known); the second adds GPUs first, in rank order, so that node order gives the GPU index.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nccl_xml_hardware.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"
#include "syncsim/topology/nccl_xml_io.hpp"
#include "xml_reader.hpp"

namespace syncsim {

namespace {

using nccl_xml::bus_id;
using nccl_xml::inter_cpu_gb_per_s;
using nccl_xml::kInterCpuLatency;
using nccl_xml::kLocalGBps;
using nccl_xml::kNvlinkLatency;
using nccl_xml::kPcieLatency;
using nccl_xml::lower;
using nccl_xml::nvlink_gb_per_s;
using nccl_xml::pcie_bandwidth;
using nccl_xml::Source;

struct NodeRef {
  bool gpu = false;
  std::size_t index = 0;  // into gpus_ or others_
};

struct GpuRecord {
  const xml::Element* element;
  int host;
  std::int64_t dev;
  std::int64_t sm;
  const xml::Attribute* rank;
  NodeRef cpu;
};

struct PendingLink {
  NodeRef a;
  NodeRef b;
  Bandwidth bandwidth;
  SimTime latency;
  LinkKind kind;
};

class Importer {
 public:
  Importer(const Source& source, const xml::Element& root) : source_(source), root_(root) {}

  Topology run() {
    if (root_.name != "system") source_.fail(root_, "the root element must be <system> (an NCCL topology dump)");
    const xml::Attribute& version = source_.required(root_, "version");
    if (version.value != "1") source_.fail(root_, version, "syncsim reads NCCL topology version 1 only");
    std::vector<std::string> host_hashes;
    for (const xml::Element& cpu : root_.children) {
      if (cpu.name != "cpu") continue;  // NCCL ignores elements it does not know; so does this
      const xml::Attribute* hash = cpu.attribute("host_hash");
      const std::string key = hash ? lower(hash->value) : "";
      auto host = std::find(host_hashes.begin(), host_hashes.end(), key);
      if (host == host_hashes.end()) host = host_hashes.insert(host_hashes.end(), key);
      cpus_.push_back(Cpu{&cpu, static_cast<int>(host - host_hashes.begin()), {}});
    }
    hosts_ = host_hashes.size();
    for (Cpu& cpu : cpus_) read_cpu(cpu);
    if (gpus_.empty()) source_.fail(root_, "no <gpu> in the file: NCCL writes one inside the <pci> of each GPU");
    for (std::size_t g = 0; g < gpus_.size(); ++g) read_nvlinks(g);
    for (const auto& [pair, bandwidth] : gpu_pairs_) {
      link(NodeRef{true, pair.first}, NodeRef{true, pair.second}, Bandwidth::from_gb_per_s(bandwidth), kNvlinkLatency,
           LinkKind::nvlink);
    }
    link_cpus();
    return build();
  }

 private:
  struct Cpu {
    const xml::Element* element;
    int host;
    NodeRef node;
  };

  std::string prefixed(int host, const std::string& name) const {
    return hosts_ > 1 ? fmt::format("h{}.{}", host, name) : name;
  }
  NodeRef add_other(std::string name, NodeKind kind, std::optional<int> host) {
    others_.push_back(Node{std::move(name), kind, SimTime::zero(), host});
    return NodeRef{false, others_.size() - 1};
  }
  void link(NodeRef a, NodeRef b, Bandwidth bandwidth, SimTime latency, LinkKind kind) {
    links_.push_back(PendingLink{a, b, bandwidth, latency, kind});
  }

  void read_cpu(Cpu& cpu) {
    const xml::Element& element = *cpu.element;
    const std::int64_t numa = source_.integer(element, "numaid", -1);
    for (const Cpu& other : cpus_) {
      if (&other == &cpu) break;
      if (other.host == cpu.host && source_.integer(*other.element, "numaid", -1) == numa) {
        source_.fail(element, *element.attribute("numaid"),
                     fmt::format("numaid {} is used twice (first at line {})", numa, other.element->at.line));
      }
    }
    cpu.node = add_other(prefixed(cpu.host, fmt::format("cpu{}", numa)), NodeKind::cpu, cpu.host);
    for (const xml::Element& child : element.children) {
      if (child.name == "pci") read_pci(child, cpu.node, cpu);
      if (child.name == "nic") add_nic(child, nullptr, cpu.node, Bandwidth::from_gb_per_s(kLocalGBps), cpu.host);
    }
  }

  void read_pci(const xml::Element& pci, NodeRef parent, const Cpu& cpu) {
    const xml::Attribute& busid = source_.required(pci, "busid");
    const std::string pci_class = lower(source_.required(pci, "class").value);
    const std::uint64_t id = bus_id(source_, pci, busid);
    const xml::Element* gpu = nullptr;
    const xml::Element* nic = nullptr;
    for (const xml::Element& child : pci.children) {
      if (child.name == "gpu" && gpu != nullptr) {
        source_.fail(child, "a second <gpu> in one <pci> (MLOPart GPU partitions) is not supported");
      }
      if (child.name == "gpu") gpu = &child;
      if (child.name == "nic" && nic == nullptr) nic = &child;
    }
    if (gpu != nullptr) {
      const xml::Attribute* rank = gpu->attribute("rank");
      if (rank != nullptr) source_.integer(*gpu, *rank, 0);
      gpus_.push_back(
          GpuRecord{gpu, cpu.host, source_.integer(*gpu, "dev", 0), source_.integer(*gpu, "sm", 1), rank, cpu.node});
      const auto [where, added] = gpu_by_bus_.try_emplace({cpu.host, id}, gpus_.size() - 1);
      if (!added) {
        source_.fail(pci, busid,
                     fmt::format("busid '{}' is used twice (first at line {})", busid.value,
                                 gpus_[where->second].element->at.line));
      }
      link(NodeRef{true, gpus_.size() - 1}, parent, pcie_bandwidth(source_, pci), kPcieLatency, LinkKind::pcie);
    }
    if (nic != nullptr) add_nic(*nic, &pci, parent, pcie_bandwidth(source_, pci), cpu.host);
    if (gpu != nullptr || nic != nullptr) return;
    // NCCL keeps no node for a GPU, NIC, NVSwitch or NPU device with nothing it uses inside.
    if (pci_class.starts_with("0x03") || pci_class.starts_with("0x02") || pci_class.starts_with("0x0680")) return;
    const NodeRef bridge = add_other(prefixed(cpu.host, "pcie_" + lower(busid.value)), NodeKind::pcie_switch, cpu.host);
    link(bridge, parent, pcie_bandwidth(source_, pci), kPcieLatency, LinkKind::pcie);
    for (const xml::Element& child : pci.children) {
      if (child.name == "pci") read_pci(child, bridge, cpu);
    }
  }

  // One nic node per NIC device, named after its ports (<net name>); NCCL's per-port NET nodes are not modelled.
  void add_nic(const xml::Element& nic, const xml::Element* pci, NodeRef parent, Bandwidth bandwidth, int host) {
    std::string name;
    for (const xml::Element& net : nic.children) {
      const xml::Attribute* port = net.attribute("name");
      if (net.name == "net" && port != nullptr) name += (name.empty() ? "" : "+") + port->value;
    }
    if (name.empty()) {
      name = pci ? "nic_" + lower(pci->attribute("busid")->value) : fmt::format("nic_l{}", nic.at.line);
    }
    link(add_other(prefixed(host, name), NodeKind::nic, host), parent, bandwidth, kPcieLatency, LinkKind::pcie);
  }

  NodeRef nvswitch() {
    if (!nvswitch_)
      nvswitch_ = add_other("nvswitch", NodeKind::nvswitch, hosts_ == 1 ? std::optional<int>(0) : std::nullopt);
    return *nvswitch_;
  }

  // NVLinks and C2C links of GPU g. Several <nvlink>s to one place add up; a GPU pair listed by both GPUs is one
  // physical link, at the smaller of the two rates when they differ (NCCL would keep both directions apart).
  void read_nvlinks(std::size_t g) {
    const GpuRecord& gpu = gpus_[g];
    const double per_link = nvlink_gb_per_s(gpu.sm);
    std::map<std::size_t, double> to_gpu;
    double to_nvswitch = 0, to_cpu = 0, c2c = 0;
    for (const xml::Element& child : gpu.element->children) {
      if (child.name == "c2c") {
        // NCCL: bw (MB/s per link) x count / 1000 GB/s (topo.cc ncclTopoAddC2c).
        const auto mb_per_s = static_cast<double>(source_.integer(child, "bw", 1));
        c2c += mb_per_s * static_cast<double>(source_.integer(child, "count", 1)) / 1000;
        continue;
      }
      if (child.name != "nvlink") continue;
      const double bandwidth = static_cast<double>(source_.integer(child, "count", 1)) * per_link;
      const xml::Attribute& tclass = source_.required(child, "tclass");
      const std::string target_class = lower(tclass.value);
      if (target_class.starts_with("0x03")) {
        const xml::Attribute& target = source_.required(child, "target");
        const auto found = gpu_by_bus_.find({gpu.host, bus_id(source_, child, target)});
        if (found == gpu_by_bus_.end()) {
          source_.fail(child, target,
                       fmt::format("nvlink target '{}' is not the busid of a GPU in this file", target.value));
        }
        if (found->second == g) source_.fail(child, target, "an nvlink from a GPU to itself");
        to_gpu[found->second] += bandwidth;
      } else if (target_class == "0x068000") {
        to_nvswitch += bandwidth;
      } else if (target_class == "0x068001") {
        to_cpu += bandwidth;
      } else {
        source_.fail(child, tclass,
                     fmt::format("unknown tclass '{}': expected 0x03.... (a GPU), 0x068000 (an NVSwitch) or 0x068001 "
                                 "(an IBM NPU, meaning the GPU's CPU)",
                                 tclass.value));
      }
    }
    const NodeRef self{true, g};
    if (to_nvswitch > 0)
      link(self, nvswitch(), Bandwidth::from_gb_per_s(to_nvswitch), kNvlinkLatency, LinkKind::nvlink);
    if (to_cpu > 0) link(self, gpu.cpu, Bandwidth::from_gb_per_s(to_cpu), kNvlinkLatency, LinkKind::nvlink);
    if (c2c > 0) link(self, gpu.cpu, Bandwidth::from_gb_per_s(c2c), kNvlinkLatency, LinkKind::nvlink);
    for (const auto& [other, bandwidth] : to_gpu) {
      const auto key = std::minmax(g, other);
      const auto [where, added] = gpu_pairs_.try_emplace(key, bandwidth);
      if (!added) where->second = std::min(where->second, bandwidth);
    }
  }

  void link_cpus() {
    // NCCL links every pair of CPUs of a host (ncclTopoConnectCpus), each way at that CPU's rate.
    for (std::size_t i = 0; i < cpus_.size(); ++i) {
      for (std::size_t j = i + 1; j < cpus_.size(); ++j) {
        if (cpus_[i].host != cpus_[j].host) continue;
        const double from_i = inter_cpu_gb_per_s(source_, *cpus_[i].element);  // i first: errors in file order
        const double from_j = inter_cpu_gb_per_s(source_, *cpus_[j].element);
        link(cpus_[i].node, cpus_[j].node, Bandwidth::from_gb_per_s(std::min(from_i, from_j)), kInterCpuLatency,
             LinkKind::pcie);
      }
    }
  }

  Topology build() {
    const bool ranked = std::all_of(gpus_.begin(), gpus_.end(), [](const GpuRecord& g) { return g.rank != nullptr; });
    const auto rank_of = [&](const GpuRecord& g) { return source_.integer(*g.element, *g.rank, 0); };
    std::vector<std::size_t> order(gpus_.size());
    for (std::size_t g = 0; g < order.size(); ++g) order[g] = g;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      if (ranked) return rank_of(gpus_[a]) < rank_of(gpus_[b]);
      return std::pair(gpus_[a].host, gpus_[a].dev) < std::pair(gpus_[b].host, gpus_[b].dev);
    });
    for (std::size_t i = 1; i < order.size(); ++i) {
      const GpuRecord& before = gpus_[order[i - 1]];
      const GpuRecord& gpu = gpus_[order[i]];
      if (ranked && rank_of(before) == rank_of(gpu)) {
        source_.fail(
            *gpu.element, *gpu.rank,
            fmt::format("rank {} is used by two GPUs (also at line {})", rank_of(gpu), before.element->at.line));
      }
      if (!ranked && before.host == gpu.host && before.dev == gpu.dev) {
        source_.fail(*gpu.element, *gpu.element->attribute("dev"),
                     fmt::format("dev {} is used by two GPUs (also at line {})", gpu.dev, before.element->at.line));
      }
    }
    Topology topology;
    std::vector<NodeId> gpu_nodes(gpus_.size());
    for (std::size_t index = 0; index < order.size(); ++index) {
      const GpuRecord& gpu = gpus_[order[index]];
      gpu_nodes[order[index]] =
          topology.add_node(Node{fmt::format("gpu{}", index), NodeKind::gpu, SimTime::zero(), gpu.host});
    }
    std::vector<NodeId> other_nodes;
    for (Node& node : others_) other_nodes.push_back(topology.add_node(std::move(node)));
    const auto id = [&](NodeRef ref) { return ref.gpu ? gpu_nodes[ref.index] : other_nodes[ref.index]; };
    for (const PendingLink& l : links_) topology.add_duplex_link(id(l.a), id(l.b), l.bandwidth, l.latency, l.kind);
    return topology;
  }

  const Source& source_;
  const xml::Element& root_;
  std::size_t hosts_ = 1;
  std::vector<Cpu> cpus_;
  std::vector<GpuRecord> gpus_;
  std::vector<Node> others_;
  std::vector<PendingLink> links_;
  std::map<std::pair<int, std::uint64_t>, std::size_t> gpu_by_bus_;
  std::map<std::pair<std::size_t, std::size_t>, double> gpu_pairs_;
  std::optional<NodeRef> nvswitch_;
};

}  // namespace

Topology read_nccl_xml_text(std::string_view text, std::string_view source_name) {
  // A byte-order mark and old Mac line endings, as read_input_file handles a file's.
  std::string normalized;
  if (needs_normalizing(text)) {
    normalized = normalized_input_text(text);
    text = normalized;
  }
  const Source source{std::string(source_name)};
  const xml::Element root = xml::parse(text, source.name);
  Topology topology = Importer(source, root).run();
  try {
    topology.check_gpus_connected();
  } catch (const InputError& error) {
    throw error.at(source.at(root.at));
  }
  topology.set_description(source.name);
  return topology;
}

Topology read_nccl_xml(const std::filesystem::path& path) {
  return read_nccl_xml_text(read_input_file(path, "NCCL topology file"), path.string());
}

}  // namespace syncsim
