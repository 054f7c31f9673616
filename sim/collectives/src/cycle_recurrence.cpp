#include "cycle_recurrence.hpp"

#include <algorithm>
#include <limits>

#include "syncsim/core/sim_time_overflow.hpp"

namespace syncsim::collectives_detail {

namespace {

// 128 bits: prefix sums of picosecond weights and their products with positions can pass 64.
__extension__ typedef __int128 Wide;
// Below any line's value (positions times 64-bit weights stay within about 1e25): what an empty range gives.
constexpr Wide kBelowAll = -(static_cast<Wide>(1) << 120);

// Lines y = slope · α + intercept with slopes 0, 1, 2, ... (positions): a segment tree whose every node holds the
// upper hull of its range's lines, so that the largest line at α over a range is O(log² N).
class HullTree {
 public:
  explicit HullTree(std::vector<Wide> intercepts) : intercept_(std::move(intercepts)) {
    const std::size_t n = intercept_.size();
    size_ = 1;
    while (size_ < n) size_ *= 2;
    begin_.assign(2 * size_ + 1, 0);
    // Leaves first, then each level from its children's hulls (a line off a child's hull is off the parent's).
    std::vector<std::vector<std::uint32_t>> hulls(2 * size_);
    for (std::size_t i = 0; i < n; ++i) hulls[size_ + i] = {static_cast<std::uint32_t>(i)};
    for (std::size_t k = size_ - 1; k >= 1; --k) {
      std::vector<std::uint32_t>& hull = hulls[k];
      for (const std::vector<std::uint32_t>* child : {&hulls[2 * k], &hulls[2 * k + 1]}) {
        for (const std::uint32_t line : *child) push(hull, line);
      }
    }
    for (std::size_t k = 1; k < 2 * size_; ++k) {
      begin_[k] = lines_.size();
      lines_.insert(lines_.end(), hulls[k].begin(), hulls[k].end());
      hulls[k] = {};
      begin_[k + 1] = lines_.size();
    }
  }

  // The largest line at α over positions [lo, hi].
  Wide max_at(std::size_t lo, std::size_t hi, std::int64_t alpha) const {
    Wide best = kBelowAll;
    for (std::size_t l = lo + size_, r = hi + size_ + 1; l < r; l /= 2, r /= 2) {
      if (l & 1) best = std::max(best, node_max(l++, alpha));
      if (r & 1) best = std::max(best, node_max(--r, alpha));
    }
    return best;
  }

 private:
  Wide value(std::uint32_t line, std::int64_t alpha) const {
    return intercept_[line] + static_cast<Wide>(line) * alpha;
  }

  // Appends a line of larger slope than the hull's, dropping the lines it makes never the largest.
  void push(std::vector<std::uint32_t>& hull, std::uint32_t line) const {
    while (hull.size() >= 2) {
      const std::uint32_t a = hull[hull.size() - 2];
      const std::uint32_t b = hull.back();
      // b is never above both a and `line` when `line` overtakes a no later than b does.
      if ((intercept_[line] - intercept_[a]) * static_cast<Wide>(b - a) <
          (intercept_[b] - intercept_[a]) * static_cast<Wide>(line - a)) {
        break;
      }
      hull.pop_back();
    }
    hull.push_back(line);
  }

  // Along a hull the values at α rise, then fall: the peak by bisection.
  Wide node_max(std::size_t node, std::int64_t alpha) const {
    std::size_t lo = begin_[node];
    std::size_t hi = begin_[node + 1];
    if (lo == hi) return kBelowAll;
    --hi;
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      if (value(lines_[mid], alpha) <= value(lines_[mid + 1], alpha)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return value(lines_[lo], alpha);
  }

  std::vector<Wide> intercept_;
  std::size_t size_ = 1;
  std::vector<std::size_t> begin_;  // node k's hull is lines_[begin_[k], begin_[k + 1])
  std::vector<std::uint32_t> lines_;
};

}  // namespace

std::optional<CycleRecurrence> CycleRecurrence::make(std::span<const Recurrence* const> shapes, std::size_t states) {
  if (shapes.empty() || states == 0) return std::nullopt;
  const std::vector<std::uint32_t>& pred = shapes[0]->pred;
  for (const Recurrence* shape : shapes) {
    if (shape->pred != pred) return std::nullopt;
  }
  std::vector<char> seen(states, 0);
  for (const std::uint32_t p : pred) {
    if (p >= states || seen[p]) return std::nullopt;  // not a permutation
    seen[p] = 1;
  }
  CycleRecurrence result;
  std::fill(seen.begin(), seen.end(), 0);
  for (std::uint32_t start = 0; start < states; ++start) {
    if (seen[start]) continue;
    std::vector<std::uint32_t> cycle;  // start, p(start), p(p(start)), ...: reversed below
    for (std::uint32_t s = start; !seen[s]; s = pred[s]) {
      seen[s] = 1;
      cycle.push_back(s);
    }
    std::reverse(cycle.begin(), cycle.end());
    result.cycles_.push_back(std::move(cycle));
  }
  return result;
}

bool CycleRecurrence::advance(const Recurrence& shape, std::uint64_t steps, std::vector<std::int64_t>& x,
                              std::size_t max_levels) const {
  if (steps == 0) return true;
  std::vector<std::int64_t> next(x.size());
  std::size_t levels = 0;
  for (const std::vector<std::uint32_t>& cycle : cycles_) {
    const std::size_t length = cycle.size();
    // Positions 0 .. length + T - 1: the T before each rank's own, cycling round as often as needed.
    if (steps > 4 * length + 4) return false;  // more steps than a ring collective takes: step one by one
    const auto t = static_cast<std::size_t>(steps);
    const std::size_t n = length + t;
    const auto state_at = [&](std::size_t position) { return cycle[(position + length - t % length) % length]; };
    std::vector<std::int64_t> a(n);
    std::vector<Wide> prefix_b(n);  // b summed over positions 0 .. i
    std::vector<Wide> intercepts(n);
    Wide sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t s = state_at(i);
      a[i] = shape.self_weight[s];
      sum += shape.receive_weight[s];
      prefix_b[i] = sum;
      intercepts[i] = x[s] - sum;
    }
    // Each position's previous greater a (strictly), or none: the chain of levels.
    constexpr std::size_t kNoGreater = ~std::size_t{0};
    std::vector<std::size_t> previous_greater(n, kNoGreater);
    std::vector<std::size_t> stack;
    for (std::size_t i = 0; i < n; ++i) {
      while (!stack.empty() && a[stack.back()] <= a[i]) stack.pop_back();
      if (!stack.empty()) previous_greater[i] = stack.back();
      stack.push_back(i);
    }
    const HullTree hulls(std::move(intercepts));
    for (std::size_t u = 0; u < length; ++u) {
      const std::size_t own = u + t;  // the rank's own position; its window is [u, own]
      Wide best = kBelowAll;
      for (std::size_t level = own;;) {
        if (++levels > max_levels) return false;
        const std::int64_t alpha = a[level];
        const std::size_t p = previous_greater[level];
        const std::size_t lo = p == kNoGreater || p < u ? u : p + 1;
        best = std::max(best, hulls.max_at(lo, level, alpha) + prefix_b[own] - static_cast<Wide>(u) * alpha);
        if (lo == u) break;
        level = p;
      }
      if (best > std::numeric_limits<std::int64_t>::max()) {
        throw SimTimeOverflow("the steps of a collective (run in lockstep over its channels)");
      }
      next[state_at(own)] = static_cast<std::int64_t>(best);
    }
  }
  x.swap(next);
  return true;
}

}  // namespace syncsim::collectives_detail
