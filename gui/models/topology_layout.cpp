#include "models/topology_layout.h"

#include <QCoreApplication>
#include <algorithm>
#include <deque>
#include <limits>

#include "syncsim/collectives/transfer_cost.hpp"
#include "syncsim/topology/router.hpp"
#include "syncsim/topology/topology.hpp"

namespace {

// Sizes in GPU widths. A server is a row of GPU columns; NICs sit under their GPUs, NVSwitches span the row above.
constexpr double kGpuWidth = 1.0;
constexpr double kGpuHeight = 0.8;
constexpr double kGap = 0.3;
constexpr double kPad = 0.3;
constexpr double kHostSwitchHeight = 0.6;  // two lines: the NVSwitch's name, its GPUs' NVLink rates
constexpr double kNicWidth = 0.6;
constexpr double kNicHeight = 0.3;
constexpr double kHostGap = 0.8;

using Kind = TopologyBox::Kind;

Kind boxKindOf(syncsim::NodeKind kind) {
  switch (kind) {
    case syncsim::NodeKind::gpu:
      return Kind::Gpu;
    case syncsim::NodeKind::nvswitch:
      return Kind::NvSwitch;
    case syncsim::NodeKind::nic:
      return Kind::Nic;
    case syncsim::NodeKind::network_switch:
      return Kind::NetworkSwitch;
    case syncsim::NodeKind::pcie_switch:
    case syncsim::NodeKind::cpu:
      return Kind::Other;
  }
  return Kind::Other;
}

TopologyEdge::Kind edgeKindOf(syncsim::LinkKind kind) {
  switch (kind) {
    case syncsim::LinkKind::nvlink:
      return TopologyEdge::Kind::NvLink;
    case syncsim::LinkKind::pcie:
      return TopologyEdge::Kind::Pcie;
    case syncsim::LinkKind::network:
      return TopologyEdge::Kind::Network;
  }
  return TopologyEdge::Kind::Other;
}

QString labelOf(const syncsim::Topology& t, syncsim::NodeId id) {
  const syncsim::Node& n = t.node(id);
  if (n.kind == syncsim::NodeKind::gpu) {
    return QCoreApplication::translate("TopologyLayout", "GPU %1").arg(*t.gpu_index(id));
  }
  if (n.kind == syncsim::NodeKind::nvswitch) return QCoreApplication::translate("TopologyLayout", "NVSwitch");
  if (n.kind == syncsim::NodeKind::nic) return {};  // too small for text; the tooltip-free picture reads without it
  return QString::fromStdString(n.name);
}

}  // namespace

TopologyLayout::TopologyLayout(syncsim::Topology topology, int ranks)
    : m_topology(std::make_unique<syncsim::Topology>(std::move(topology))),
      m_router(std::make_unique<syncsim::Router>(*m_topology)),
      m_ranks(std::clamp(ranks, 0, static_cast<int>(m_topology->gpu_count()))),
      m_description(QString::fromStdString(m_topology->description())) {
  place(*m_topology);
}

TopologyLayout::~TopologyLayout() = default;

int TopologyLayout::count(TopologyBox::Kind kind) const {
  return static_cast<int>(
      std::count_if(m_boxes.begin(), m_boxes.end(), [kind](const TopologyBox& b) { return b.kind == kind; }));
}

void TopologyLayout::place(const syncsim::Topology& t) {
  const std::size_t nodes = t.node_count();
  m_boxOfNode.assign(nodes, -1);
  bool anyHost = false;
  bool anySwitch = false;
  std::map<int, std::vector<syncsim::NodeId>> hosted;  // host -> its nodes, in id order
  std::vector<syncsim::NodeId> hostlessGpus;
  for (std::uint32_t i = 0; i < nodes; ++i) {
    const syncsim::NodeId id{i};
    const syncsim::Node& n = t.node(id);
    anySwitch |= n.kind == syncsim::NodeKind::nvswitch || n.kind == syncsim::NodeKind::network_switch ||
                 n.kind == syncsim::NodeKind::pcie_switch;
    if (n.host) {
      anyHost = true;
      hosted[*n.host].push_back(id);
    } else if (n.kind == syncsim::NodeKind::gpu) {
      hostlessGpus.push_back(id);
    }
  }
  m_circle = !anyHost && !anySwitch;

  const auto addBox = [this, &t](Kind kind, QRectF rect, std::optional<syncsim::NodeId> node) {
    const int index = static_cast<int>(m_boxes.size());
    m_boxes.push_back(TopologyBox{kind, rect, node ? labelOf(t, *node) : QString()});
    if (node) m_boxOfNode[node->value()] = index;
    return index;
  };

  // Servers, left to right, then GPUs that belong to none (a switch or fat-tree's GPUs).
  double x = 0;
  for (const auto& [host, members] : hosted) {
    std::vector<syncsim::NodeId> switches;
    std::vector<syncsim::NodeId> gpus;
    std::vector<syncsim::NodeId> nics;
    for (const syncsim::NodeId id : members) {
      const Kind k = boxKindOf(t.node(id).kind);
      (k == Kind::Gpu ? gpus : k == Kind::Nic ? nics : switches).push_back(id);
    }
    const auto columns = static_cast<double>(std::max<std::size_t>({gpus.size(), nics.size(), 1}));
    const double inner = columns * (kGpuWidth + kGap) - kGap;
    // Top to bottom: NICs (their links go up to the leaves), GPUs, the server's switches (NVSwitch) below them, so
    // no link has to cross another box.
    const double nicY = kPad;
    const double gpuY = nicY + (nics.empty() ? 0 : kNicHeight + kGap * 0.6);
    const double switchY = gpuY + kGpuHeight + kGap;
    const double bottom = (switches.empty() ? gpuY + kGpuHeight : switchY + kHostSwitchHeight) + kPad;
    const int hostBox = addBox(Kind::Host, QRectF(x, 0, inner + 2 * kPad, bottom), std::nullopt);
    m_boxes.back().label = QCoreApplication::translate("TopologyLayout", "server %1").arg(host);
    m_hostBoxes.push_back(hostBox);
    const std::size_t firstMember = m_boxes.size();
    const auto count = static_cast<double>(switches.size());
    const double each = (inner - kGap * (count - 1)) / std::max(1.0, count);
    for (std::size_t i = 0; i < switches.size(); ++i) {
      addBox(boxKindOf(t.node(switches[i]).kind),
             QRectF(x + kPad + static_cast<double>(i) * (each + kGap), switchY, each, kHostSwitchHeight), switches[i]);
    }
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      addBox(Kind::Gpu, QRectF(x + kPad + static_cast<double>(i) * (kGpuWidth + kGap), gpuY, kGpuWidth, kGpuHeight),
             gpus[i]);
    }
    for (std::size_t i = 0; i < nics.size(); ++i) {
      const double cx = x + kPad + static_cast<double>(i) * (kGpuWidth + kGap) + kGpuWidth / 2;
      addBox(Kind::Nic, QRectF(cx - kNicWidth / 2, nicY, kNicWidth, kNicHeight), nics[i]);
    }
    m_hostOfBox.resize(m_boxes.size(), -1);
    std::fill(m_hostOfBox.begin() + static_cast<std::ptrdiff_t>(firstMember), m_hostOfBox.end(), hostBox);
    x += inner + 2 * kPad + kHostGap;
  }
  for (const syncsim::NodeId id : hostlessGpus) {
    addBox(Kind::Gpu, QRectF(x, kPad, kGpuWidth, kGpuHeight), id);
    x += kGpuWidth + kGap;
  }
  const double width = std::max(x - kHostGap, kGpuWidth);

  // Everything else in tiers above, by hops from what is placed (breadth first).
  std::vector<int> level(nodes, std::numeric_limits<int>::max());
  std::deque<std::uint32_t> queue;
  for (std::uint32_t i = 0; i < nodes; ++i) {
    if (m_boxOfNode[i] >= 0) {
      level[i] = 0;
      queue.push_back(i);
    }
  }
  while (!queue.empty()) {
    const std::uint32_t u = queue.front();
    queue.pop_front();
    for (const syncsim::LinkId l : t.out_links(syncsim::NodeId{u})) {
      const std::uint32_t v = t.link(l).dst.value();
      if (level[v] == std::numeric_limits<int>::max()) {
        level[v] = level[u] + 1;
        queue.push_back(v);
      }
    }
  }
  std::map<int, std::vector<std::uint32_t>> tiers;
  for (std::uint32_t i = 0; i < nodes; ++i) {
    if (m_boxOfNode[i] < 0) tiers[level[i] == std::numeric_limits<int>::max() ? 1 : level[i]].push_back(i);
  }
  for (auto& [tier, members] : tiers) {
    // Barycentre of the neighbours already placed (the tier below), so links cross as little as they can.
    std::vector<std::pair<double, std::uint32_t>> order;
    for (const std::uint32_t i : members) {
      double sum = 0;
      int n = 0;
      for (const syncsim::LinkId l : t.out_links(syncsim::NodeId{i})) {
        const int box = m_boxOfNode[t.link(l).dst.value()];
        if (box < 0) continue;
        sum += m_boxes[static_cast<std::size_t>(box)].rect.center().x();
        ++n;
      }
      order.emplace_back(n > 0 ? sum / n : width / 2, i);
    }
    std::stable_sort(order.begin(), order.end());
    const double slot = width / static_cast<double>(order.size());
    const double w = std::min(kMaxSwitchWidth, slot * 0.85);
    const double y = -kTierPitch * tier;
    for (std::size_t k = 0; k < order.size(); ++k) {
      const double cx = slot * (static_cast<double>(k) + 0.5);
      const syncsim::NodeId id{order[k].second};
      addBox(boxKindOf(t.node(id).kind), QRectF(cx - w / 2, y, w, kTierHeight), id);
      m_boxes.back().tier = tier;
    }
  }

  // One edge per physical link: add_duplex_link makes a->b, then b->a with the higher id.
  m_useOfLink.resize(t.link_count());
  for (std::uint32_t i = 0; i < t.link_count(); ++i) {
    const syncsim::Link& l = t.link(syncsim::LinkId{i});
    if (l.reverse.value() < i) {
      m_useOfLink[i] = EdgeUse{m_useOfLink[l.reverse.value()].edge, false};
      continue;
    }
    m_useOfLink[i] = EdgeUse{static_cast<int>(m_edges.size()), true};
    m_edges.push_back(TopologyEdge{m_boxOfNode[l.src.value()], m_boxOfNode[l.dst.value()], l.bandwidth.bytes_per_second,
                                   l.kind == syncsim::LinkKind::nvlink, edgeKindOf(l.kind)});
  }
  m_hostOfBox.resize(m_boxes.size(), -1);

  m_gpuBox.resize(t.gpu_count());
  for (std::size_t g = 0; g < t.gpu_count(); ++g) m_gpuBox[g] = m_boxOfNode[t.gpu(g).value()];
  for (const TopologyBox& b : m_boxes) m_bounds = m_bounds.isNull() ? b.rect : m_bounds.united(b.rect);
}

const std::vector<EdgeUse>& TopologyLayout::route(int src, int dst) const {
  auto [it, fresh] = m_routes.try_emplace({src, dst});
  if (fresh && src != dst) {
    for (const syncsim::LinkId l :
         m_router->gpu_route(static_cast<std::size_t>(src), static_cast<std::size_t>(dst)).links) {
      it->second.push_back(m_useOfLink[l.value()]);
    }
  }
  return it->second;
}

double TopologyLayout::wireBytes(const syncsim::TransferCost& cost, int src, int dst, double bytes) const {
  if (src == dst) return bytes;
  return syncsim::wire_bytes(cost, *m_topology,
                             m_router->gpu_route(static_cast<std::size_t>(src), static_cast<std::size_t>(dst)), bytes);
}
