#pragma once
// RectIndex: rectangles bucketed in a uniform grid, so that "does this label overlap anything drawn?" costs the few
// cells it covers rather than every box on a machine of thousands (TopologyPainter's label placement).
#include <QRectF>
#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

class RectIndex {
 public:
  explicit RectIndex(double cell = 48) : m_cell(cell) {}

  void insert(const QRectF& r) {
    const auto index = m_rects.size();
    m_rects.push_back(r);
    forCells(r, [&](long long key) {
      m_cells[key].push_back(index);
      return false;
    });
  }

  bool intersects(const QRectF& r) const {
    return forCells(r, [&](long long key) {
      const auto it = m_cells.find(key);
      if (it == m_cells.end()) return false;
      return std::any_of(it->second.begin(), it->second.end(), [&](std::size_t i) { return m_rects[i].intersects(r); });
    });
  }

 private:
  // Calls f with each covered cell's key until it returns true; returns whether it did.
  template <typename F>
  bool forCells(const QRectF& r, F f) const {
    const auto x0 = static_cast<long long>(std::floor(r.left() / m_cell));
    const auto x1 = static_cast<long long>(std::floor(r.right() / m_cell));
    const auto y0 = static_cast<long long>(std::floor(r.top() / m_cell));
    const auto y1 = static_cast<long long>(std::floor(r.bottom() / m_cell));
    for (long long y = y0; y <= y1; ++y) {
      for (long long x = x0; x <= x1; ++x) {
        if (f(y * kRowKey + x)) return true;
      }
    }
    return false;
  }

  static constexpr long long kRowKey = 1 << 20;
  double m_cell;
  std::vector<QRectF> m_rects;
  std::unordered_map<long long, std::vector<std::size_t>> m_cells;
};
