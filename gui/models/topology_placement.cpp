#include "models/topology_placement.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "models/topology_layout.h"

namespace {

using Kind = TopologyBox::Kind;

// Sizes in TopologyLayout's units (a GPU box is 1 wide).
constexpr double kUnitGap = 0.6;         // between servers in a row
constexpr double kRowGap = 0.8;          // between rows of servers
constexpr double kBlockGap = 1.4;        // between blocks of servers under different leaves (pods)
constexpr double kMaxTierPitch = 12.0;   // what spare height may stretch a tier gap to
constexpr double kCaptionHeight = 0.42;  // the band inside a server box that holds "server N"
// A collapsed server: its NIC ports along the top, a cell per GPU, its caption.
constexpr double kPortPitch = 0.32;
constexpr double kCollapsedPad = 0.15;
constexpr double kCollapsedMinWidth = 2.4;
constexpr double kPortTop = 0.1;
constexpr double kPortHeight = 0.22;
constexpr double kCellTop = 0.48;
constexpr double kCellHeight = 0.36;
constexpr double kCollapsedHeight = kCellTop + kCellHeight + 0.08 + kCaptionHeight;
// The pixels a collapsed server needs to show its ports apart and its caption; a GPU box its name.
constexpr double kMinCollapsedPixels = 64;
constexpr int kMaxRowsTried = 64;

using Members = TopologyPlacement::HostMembers;

std::map<int, Members> membersOf(const TopologyLayout& layout) {
  std::map<int, Members> members;
  for (const int host : layout.hostBoxes()) members[host];
  for (std::size_t b = 0; b < layout.boxes().size(); ++b) {
    const int host = layout.hostOf(static_cast<int>(b));
    if (host < 0) continue;
    const Kind kind = layout.boxes()[b].kind;
    if (kind == Kind::Gpu) members[host].gpus.push_back(static_cast<int>(b));
    if (kind == Kind::Nic) members[host].nics.push_back(static_cast<int>(b));
  }
  return members;
}

double collapsedWidth(const Members& m) {
  const auto ports = static_cast<double>(std::max(m.nics.size(), m.gpus.size()));
  return std::max(kCollapsedMinWidth, ports * kPortPitch + 2 * kCollapsedPad);
}

// Evenly spaced slots of `count` across [left, left + width): the i-th slot's centre.
double slotCentre(double left, double width, std::size_t count, std::size_t i) {
  return left + width * (static_cast<double>(i) + 0.5) / static_cast<double>(std::max<std::size_t>(count, 1));
}

int tierCount(const TopologyLayout& layout) {
  int tiers = 0;
  for (const TopologyBox& b : layout.boxes()) tiers = std::max(tiers, b.tier);
  return tiers;
}

// Row widths and heights of wrapping `units` at `rowWidth`: greedy, in order.
struct Wrap {
  double width = 0;
  double height = 0;
  int rows = 0;
};

Wrap wrap(const std::vector<QSizeF>& units, double rowWidth) {
  Wrap w;
  double x = 0;
  double rowHeight = 0;
  for (const QSizeF& u : units) {
    if (x > 0 && x + u.width() > rowWidth + 1e-9) {
      w.width = std::max(w.width, x - kUnitGap);
      w.height += rowHeight + kRowGap;
      x = 0;
      rowHeight = 0;
    }
    if (x == 0) ++w.rows;
    x += u.width() + kUnitGap;
    rowHeight = std::max(rowHeight, u.height());
  }
  w.width = std::max(w.width, x - kUnitGap);
  w.height += rowHeight;
  return w;
}

// Blocks side by side, each wrapped at `rowWidth`.
Wrap wrapBlocks(const std::vector<std::vector<QSizeF>>& blocks, double rowWidth) {
  Wrap all;
  for (const auto& block : blocks) {
    const Wrap w = wrap(block, rowWidth);
    all.width += w.width + (all.width > 0 ? kBlockGap : 0);
    all.height = std::max(all.height, w.height);
    all.rows = std::max(all.rows, w.rows);
  }
  return all;
}

}  // namespace

QTransform TopologyPlacement::transform(const QRectF& b, const QRectF& area, double margin) {
  const QRectF inner = area.adjusted(margin, margin, -margin, -margin);
  if (b.width() <= 0 || b.height() <= 0 || inner.width() <= 0 || inner.height() <= 0) return {};
  const double s = std::min(inner.width() / b.width(), inner.height() / b.height());
  const QPointF offset = inner.center() - QPointF(b.center().x() * s, b.center().y() * s);
  return QTransform(s, 0, 0, s, offset.x(), offset.y());
}

bool TopologyPlacement::collapsedByDefault(const TopologyLayout& layout, QSizeF area) {
  if (layout.hostBoxes().empty()) return false;
  // Every server expanded in one row: the layout's own arrangement, with the tiers above it.
  const QRectF b = layout.bounds();
  const double scale = std::min(area.width() / b.width(), area.height() / (b.height() + kCaptionHeight));
  return scale < kMinGpuPixels;
}

TopologyPlacement::TopologyPlacement(const TopologyLayout& layout, const std::set<int>& expanded, QSizeF area) {
  m_rects.assign(layout.boxes().size(), QRectF());
  m_members = membersOf(layout);
  const std::map<int, Members>& members = m_members;
  std::vector<Unit> units;
  double requiredScale = 0;  // pixels per unit for every server to read: its ports apart, or its GPUs' names
  for (const int host : layout.hostBoxes()) {
    const QRectF r = layout.boxes()[static_cast<std::size_t>(host)].rect;
    if (expanded.count(host) > 0) {
      units.push_back({host, -1, QRectF(r.topLeft(), QSizeF(r.width(), r.height() + kCaptionHeight))});
      requiredScale = std::max(requiredScale, kMinGpuPixels);
    } else {
      m_collapsedHosts.insert(host);
      const double w = collapsedWidth(members.at(host));
      units.push_back({host, -1, QRectF(0, 0, w, kCollapsedHeight)});
      requiredScale = std::max(requiredScale, kMinCollapsedPixels / w);
    }
  }
  for (std::size_t g = 0; g < layout.gpuCount(); ++g) {
    const int box = layout.gpuBox(static_cast<int>(g));
    if (layout.hostOf(box) < 0) {
      units.push_back({-1, box, layout.boxes()[static_cast<std::size_t>(box)].rect});
      requiredScale = std::max(requiredScale, kMinGpuPixels);
    }
  }

  // Servers under the same leaves (a pod) form a block; blocks stand side by side, each wrapped into rows, so that
  // a pod's links rise to the leaves right above it. The row width: the fewest rows at which every server reads,
  // else the rows that give the largest scale.
  const std::vector<std::vector<Unit>> blocks = blocksOf(layout, units);
  std::vector<std::vector<QSizeF>> sizes;
  double longest = 0;
  double widest = 0;
  for (const auto& block : blocks) {
    double total = 0;
    auto& blockSizes = sizes.emplace_back();
    for (const Unit& u : block) {
      blockSizes.push_back(u.inner.size());
      total += u.inner.width() + kUnitGap;
      widest = std::max(widest, u.inner.width());
    }
    longest = std::max(longest, total);
  }
  const double tiersHeight = tierCount(layout) * kTierPitch;
  const auto scaleOf = [&](const Wrap& w) {
    return std::min(area.width() / std::max(w.width, 1.0), area.height() / (w.height + tiersHeight));
  };
  double bestWidth = longest;
  double bestScale = -1;
  double chosen = -1;
  std::size_t largest = 0;
  for (const auto& block : blocks) largest = std::max(largest, block.size());
  const int maxRows = std::min<int>(kMaxRowsTried, static_cast<int>(largest));
  for (int rows = 1; rows <= std::max(1, maxRows); ++rows) {
    const double rowWidth = std::max(widest, longest / rows);
    const double scale = scaleOf(wrapBlocks(sizes, rowWidth));
    if (scale > bestScale) {
      bestScale = scale;
      bestWidth = rowWidth;
    }
    if (scale >= requiredScale) {
      chosen = rowWidth;
      break;
    }
  }
  const double rowWidth = chosen > 0 ? chosen : bestWidth;
  double x = 0;
  for (const auto& block : blocks) x = placeRows(layout, block, rowWidth, x) + kBlockGap;

  // Spare height (a wide machine in a tall area) goes to the tier gaps, so that the drawing fills the area.
  const Wrap rows = wrapBlocks(sizes, rowWidth);
  m_rows = rows.rows;
  const int tiers = tierCount(layout);
  double pitch = kTierPitch;
  if (tiers > 0 && area.width() > 0) {
    const double scale = area.width() / std::max(rows.width, 1.0);
    const double spare = area.height() / scale - rows.height - tiersHeight;
    pitch = std::clamp(kTierPitch + spare / tiers, kTierPitch, kMaxTierPitch);
  }
  placeTiers(layout, rows.width);
  for (std::size_t b = 0; b < m_rects.size(); ++b) {
    const int tier = layout.boxes()[b].tier;
    if (tier > 0) m_rects[b].moveTop(-pitch * tier);
  }

  m_edgeShown.resize(layout.edges().size());
  for (std::size_t e = 0; e < layout.edges().size(); ++e) {
    const TopologyEdge& edge = layout.edges()[e];
    const int host = layout.hostOf(edge.a);
    const bool inside = host >= 0 && host == layout.hostOf(edge.b) && collapsed(host);
    m_edgeShown[e] = !inside && !rect(edge.a).isNull() && !rect(edge.b).isNull();
  }
  for (const QRectF& r : m_rects) {
    if (!r.isNull()) m_bounds = m_bounds.isNull() ? r : m_bounds.united(r);
  }
}

QRectF TopologyPlacement::captionRect(int hostBox) const {
  const QRectF& r = rect(hostBox);
  return QRectF(r.left(), r.bottom() - kCaptionHeight, r.width(), kCaptionHeight);
}

// The units of one block from x = left, wrapped at rowWidth; returns the block's right edge.
double TopologyPlacement::placeRows(const TopologyLayout& layout, const std::vector<Unit>& units, double rowWidth,
                                    double left) {
  double x = 0;
  double y = 0;
  double rowHeight = 0;
  double right = left;
  for (const Unit& u : units) {
    if (x > 0 && x + u.inner.width() > rowWidth + 1e-9) {
      x = 0;
      y += rowHeight + kRowGap;
      rowHeight = 0;
    }
    placeUnit(layout, u, QPointF(left + x, y));
    right = std::max(right, left + x + u.inner.width());
    x += u.inner.width() + kUnitGap;
    rowHeight = std::max(rowHeight, u.inner.height());
  }
  return right;
}

// Units grouped by the leaves (tier-1 switches) they link to, in order of first appearance; one block when that
// would leave a unit alone in most blocks (no pods to speak of).
std::vector<std::vector<TopologyPlacement::Unit>> TopologyPlacement::blocksOf(const TopologyLayout& layout,
                                                                              const std::vector<Unit>& units) {
  const auto& boxes = layout.boxes();
  std::vector<std::vector<int>> leavesOf(boxes.size());
  for (const TopologyEdge& e : layout.edges()) {
    if (boxes[static_cast<std::size_t>(e.b)].tier == 1) leavesOf[static_cast<std::size_t>(e.a)].push_back(e.b);
    if (boxes[static_cast<std::size_t>(e.a)].tier == 1) leavesOf[static_cast<std::size_t>(e.b)].push_back(e.a);
  }
  std::map<std::vector<int>, std::size_t> blockOf;
  std::vector<std::vector<Unit>> blocks;
  for (const Unit& u : units) {
    std::vector<int> key;
    if (u.hostBox >= 0) {
      for (const int nic : m_members.at(u.hostBox).nics) {
        const auto& leaves = leavesOf[static_cast<std::size_t>(nic)];
        key.insert(key.end(), leaves.begin(), leaves.end());
      }
    } else {
      key = leavesOf[static_cast<std::size_t>(u.gpuBox)];
    }
    std::sort(key.begin(), key.end());
    const auto [it, fresh] = blockOf.try_emplace(key, blocks.size());
    if (fresh) blocks.emplace_back();
    blocks[it->second].push_back(u);
  }
  if (blocks.size() * 2 > units.size()) return {units};
  return blocks;
}

void TopologyPlacement::placeUnit(const TopologyLayout& layout, const Unit& unit, QPointF at) {
  const auto& boxes = layout.boxes();
  if (unit.hostBox < 0) {
    m_rects[static_cast<std::size_t>(unit.gpuBox)] = QRectF(at, unit.inner.size());
    return;
  }
  const QRectF host = boxes[static_cast<std::size_t>(unit.hostBox)].rect;
  m_rects[static_cast<std::size_t>(unit.hostBox)] = QRectF(at, unit.inner.size());
  if (!collapsed(unit.hostBox)) {
    // The layout's own arrangement inside, moved along.
    const QPointF shift = at - host.topLeft();
    for (std::size_t b = 0; b < boxes.size(); ++b) {
      if (layout.hostOf(static_cast<int>(b)) == unit.hostBox) m_rects[b] = boxes[b].rect.translated(shift);
    }
    return;
  }
  // Collapsed: NIC ports along the top and a cell per GPU, each set evenly spaced; the rest hidden.
  const Members& m = m_members.at(unit.hostBox);
  const double left = at.x() + kCollapsedPad;
  const double inner = unit.inner.width() - 2 * kCollapsedPad;
  const double portWidth = std::min(0.2, inner / static_cast<double>(std::max<std::size_t>(m.nics.size(), 1)) * 0.6);
  for (std::size_t i = 0; i < m.nics.size(); ++i) {
    const double cx = slotCentre(left, inner, m.nics.size(), i);
    m_rects[static_cast<std::size_t>(m.nics[i])] =
        QRectF(cx - portWidth / 2, at.y() + kPortTop, portWidth, kPortHeight);
  }
  const double cell = inner / static_cast<double>(std::max<std::size_t>(m.gpus.size(), 1));
  for (std::size_t i = 0; i < m.gpus.size(); ++i) {
    const double cx = slotCentre(left, inner, m.gpus.size(), i);
    m_rects[static_cast<std::size_t>(m.gpus[i])] = QRectF(cx - cell * 0.4, at.y() + kCellTop, cell * 0.8, kCellHeight);
  }
}

// Each tier in one row across `width`, ordered by the mean x of its neighbours already placed (the tier below), so
// that rails and pods stay untangled.
void TopologyPlacement::placeTiers(const TopologyLayout& layout, double width) {
  const auto& boxes = layout.boxes();
  std::map<int, std::vector<int>> tiers;
  for (std::size_t b = 0; b < boxes.size(); ++b) {
    if (boxes[b].tier > 0) tiers[boxes[b].tier].push_back(static_cast<int>(b));
  }
  std::vector<std::vector<int>> neighbours(boxes.size());
  for (const TopologyEdge& e : layout.edges()) {
    neighbours[static_cast<std::size_t>(e.a)].push_back(e.b);
    neighbours[static_cast<std::size_t>(e.b)].push_back(e.a);
  }
  for (const auto& [tier, members] : tiers) {
    std::vector<std::pair<double, int>> order;
    for (const int b : members) {
      double sum = 0;
      int n = 0;
      for (const int other : neighbours[static_cast<std::size_t>(b)]) {
        const QRectF& r = rect(other);
        if (r.isNull() || boxes[static_cast<std::size_t>(other)].tier >= tier) continue;
        sum += r.center().x();
        ++n;
      }
      order.emplace_back(n > 0 ? sum / n : width / 2, b);
    }
    std::stable_sort(order.begin(), order.end());
    const double slot = width / static_cast<double>(order.size());
    const double w = std::min(kMaxSwitchWidth, slot * 0.85);
    for (std::size_t k = 0; k < order.size(); ++k) {
      const double cx = slot * (static_cast<double>(k) + 0.5);
      m_rects[static_cast<std::size_t>(order[k].second)] = QRectF(cx - w / 2, -kTierPitch * tier, w, kTierHeight);
    }
  }
}
