#pragma once
// Topology: the machine a simulation runs on, as a directed multigraph of nodes and links.
//
// Every physical link is full duplex: two directed links, each with its own bandwidth and latency, created
// together by add_duplex_link(). GPUs are numbered 0..gpu_count()-1 (their "GPU index"): collectives place
// rank r on GPU r unless told otherwise. Boost.Graph holds the structure inside the implementation; no Boost
// type appears in this header.
#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/core/sim_time.hpp"
#include "syncsim/core/strong_id.hpp"
#include "syncsim/core/units.hpp"

namespace syncsim {

enum class NodeKind { gpu, nvswitch, pcie_switch, cpu, nic, network_switch };
// A link's kind, and a route's class for costing (transfer_cost.hpp): the cost model's per-class arrays are indexed
// by it, in this order. Spelt nvlink | pcie | network in topology files and reports, nvlink | pci | net (NCCL's
// names) in calibration files.
enum class LinkKind { nvlink, pcie, network };
inline constexpr std::array<LinkKind, 3> kLinkKinds{LinkKind::nvlink, LinkKind::pcie, LinkKind::network};

// Whether a switch reduces data as it passes (an in-network reduction): an NVSwitch with NVLink SHARP (NCCL's NVLS)
// or an InfiniBand switch with SHARP (NCCL's CollNet). `automatic` is decided by what the GPUs support where they are
// known (NVLS: compute capability 9.0 and newer, collective_runner.hpp) and is off where they are not. Spelt
// off | on | auto in topology files.
enum class SwitchReduction { off, on, automatic };

std::string_view to_string(NodeKind kind);
std::string_view to_string(LinkKind kind);
std::string_view to_string(SwitchReduction reduction);
// Throw InputError naming the accepted values when the text is none of them.
NodeKind parse_node_kind(std::string_view text);
LinkKind parse_link_kind(std::string_view text);
SwitchReduction parse_switch_reduction(std::string_view text);

struct Node {
  std::string name;
  NodeKind kind = NodeKind::gpu;
  SimTime latency;          // added to every route that passes *through* this node (a switch's latency)
  std::optional<int> host;  // server (machine) index, where the topology knows it
  SwitchReduction reduction = SwitchReduction::off;  // a switch that reduces in the network (see SwitchReduction)
};

struct Link {
  NodeId src;
  NodeId dst;
  Bandwidth bandwidth;
  SimTime latency;
  LinkKind kind = LinkKind::network;
  LinkId reverse;  // the other direction of the same physical link
};

class Topology {
 public:
  Topology();
  ~Topology();
  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;
  Topology(const Topology&);
  Topology& operator=(const Topology&);

  // A GPU node also gets the next GPU index.
  NodeId add_node(Node node);
  // Two directed links a->b and b->a; returns a->b (its reverse() is b->a). Bandwidth must be > 0.
  LinkId add_duplex_link(NodeId a, NodeId b, Bandwidth bandwidth, SimTime latency, LinkKind kind);
  // One direction only (DOT digraphs). Its reverse is itself until a matching b->a link is added.
  LinkId add_simplex_link(NodeId src, NodeId dst, Bandwidth bandwidth, SimTime latency, LinkKind kind);

  std::size_t node_count() const;
  std::size_t link_count() const;  // directed links
  const Node& node(NodeId id) const;
  const Link& link(LinkId id) const;
  std::span<const LinkId> out_links(NodeId id) const;

  std::size_t gpu_count() const;
  NodeId gpu(std::size_t gpu_index) const;
  // GPU index of a GPU node; nullopt for other kinds.
  std::optional<std::size_t> gpu_index(NodeId id) const;

  // A short description: the spec it was built from ("switch:n=8,bw=100Gbps,lat=5us") or the file.
  const std::string& description() const;
  void set_description(std::string description);

  // Throws InputError when some GPU cannot reach another (message names two of them).
  void check_gpus_connected() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace syncsim
