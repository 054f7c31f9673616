#pragma once
// TopologyLayout: where the ring view draws a topology's nodes and links — servers as boxes holding their GPUs,
// NVSwitches and NICs; network switches (leaves, spines, fat-tree tiers) in rows above, each tier one hop further
// from the GPUs — and which drawn links a transfer between two ranks crosses (the simulator's own Router, so the
// path is the one the simulation used).
//
//        [spine0]           [spine1]             tier 2: two hops from the servers
//   [leaf0] [leaf1] ... [leaf7]                  tier 1
//   +-------- host 0 --------+ +-- host 1 --+
//   | [nic]   [nic]   ...     | |    ...     |
//   | [GPU 0] [GPU 1] ...     | |            |
//   | [======= NVSwitch ====] | |            |
//   +-------------------------+ +------------+
//
// Coordinates are abstract (a GPU box is 1 wide); the view scales bounds() to the widget. Switches in a tier are
// ordered by the mean x of their neighbours below (barycentre), so rails and pods stay untangled. A topology with
// no switches and no servers (ring, mesh, torus) has no useful picture beyond the ring itself: isCircle().
#include <QRectF>
#include <QString>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

// Switch boxes, drawn alike by the plain layout and the placement: the pitch from one switch tier to the next, a
// switch box's height and its widest width.
inline constexpr double kTierPitch = 1.8;
inline constexpr double kTierHeight = 0.6;
inline constexpr double kMaxSwitchWidth = 2.4;

namespace syncsim {
class Router;
class Topology;
struct TransferCost;
}  // namespace syncsim

struct TopologyBox {
  enum class Kind { Host, Gpu, NvSwitch, Nic, NetworkSwitch, Other };
  Kind kind = Kind::Other;
  QRectF rect;
  QString label;
  int tier = 0;  // a network switch's row: hops from the servers (1 = the leaves); 0 for servers and what they hold
};

struct TopologyEdge {
  enum class Kind { NvLink, Pcie, Network, Other };
  int a = 0;  // box indices; a transfer crossing a -> b uses the edge forwards
  int b = 0;
  double bytesPerSecond = 0;  // each direction's capacity
  bool nvlink = false;
  Kind kind = Kind::Other;
};

// One directed use of an edge by a route.
struct EdgeUse {
  int edge = 0;
  bool forward = true;
  bool operator==(const EdgeUse&) const = default;
  // Directed edges numbered 0 .. 2 * edges - 1: edge e forwards is 2e, backwards 2e + 1.
  int directed() const { return 2 * edge + (forward ? 0 : 1); }
};

class TopologyLayout {
 public:
  // `ranks`: how many GPUs train (ranks 0..ranks-1 on GPUs 0..ranks-1).
  TopologyLayout(syncsim::Topology topology, int ranks);
  ~TopologyLayout();
  TopologyLayout(const TopologyLayout&) = delete;
  TopologyLayout& operator=(const TopologyLayout&) = delete;

  bool isCircle() const { return m_circle; }
  const QString& description() const { return m_description; }
  const std::vector<TopologyBox>& boxes() const { return m_boxes; }
  const std::vector<TopologyEdge>& edges() const { return m_edges; }
  int count(TopologyBox::Kind kind) const;
  int rankCount() const { return m_ranks; }
  std::size_t gpuCount() const { return m_gpuBox.size(); }
  int gpuBox(int gpu) const { return m_gpuBox[static_cast<std::size_t>(gpu)]; }
  QRectF bounds() const { return m_bounds; }
  // The server box a box sits in (its GPUs, NVSwitch, NICs), else -1; the server boxes in host order.
  int hostOf(int box) const { return m_hostOfBox[static_cast<std::size_t>(box)]; }
  const std::vector<int>& hostBoxes() const { return m_hostBoxes; }
  const syncsim::Topology& topology() const { return *m_topology; }
  // The edges a transfer from rank src to rank dst crosses, in order. Computed on first use and cached: call from
  // one thread at a time (the GUI thread).
  const std::vector<EdgeUse>& route(int src, int dst) const;
  // The drawn edge, and its direction, of the topology's directed link `link` (a LinkId's value).
  EdgeUse useOfLink(std::uint32_t link) const { return m_useOfLink[link]; }
  // The bytes `bytes` of payload put on each link of that route under `cost` (a protocol's efficiency: the
  // simulator's wire_bytes, transfer_cost.hpp).
  double wireBytes(const syncsim::TransferCost& cost, int src, int dst, double bytes) const;

 private:
  void place(const syncsim::Topology& t);

  std::unique_ptr<syncsim::Topology> m_topology;  // the Router refers to it
  std::unique_ptr<syncsim::Router> m_router;
  int m_ranks = 0;
  bool m_circle = false;
  QString m_description;
  std::vector<TopologyBox> m_boxes;
  std::vector<TopologyEdge> m_edges;
  std::vector<int> m_boxOfNode;
  std::vector<int> m_gpuBox;
  std::vector<EdgeUse> m_useOfLink;  // by directed LinkId
  std::vector<int> m_hostOfBox;
  std::vector<int> m_hostBoxes;
  QRectF m_bounds;
  mutable std::map<std::pair<int, int>, std::vector<EdgeUse>> m_routes;
};
