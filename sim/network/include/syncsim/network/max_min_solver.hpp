#pragma once
// MaxMinSolver: max-min fair rates for flows sharing capacitated links, by progressive filling.
//
// The problem. Links l = 1..m with capacities C_l > 0; flows f = 1..n, each crossing a set of links L_f.
// Find rates x_f >= 0 with
//     sum_{f : l in L_f} x_f <= C_l                       for every link l            (capacity)
// that are max-min fair: no x_f can be raised without lowering some x_g <= x_f. Equivalently, every flow f has a
// bottleneck link l in L_f that is saturated (the sum above equals C_l) and on which x_f is the largest rate.
//
// Progressive filling. Raise all rates together; the first link to saturate is the one with the smallest fair
// share  s_l = (C_l - sum of rates already fixed on l) / (number of unfixed flows on l).  Fix every unfixed flow on
// that link at s_l, take s_l off each other link those flows cross, and repeat until every flow is fixed. An
// indexed min-heap of the links with unfixed flows, keyed by share and updated in place, finds the next link:
//     O((m + E) log m)   with E = sum_f |L_f|.
// Ties between links of equal share are broken by link index, so results are deterministic.
//
//   MaxMinSolver solver;
//   auto a = solver.add_link(10.0), b = solver.add_link(4.0);
//   solver.add_flow(std::array{a, b});  // limited to 4 by b
//   solver.add_flow(std::array{a});     // takes the 6 left on a
//   solver.solve();                     // rate(0) == 4, rate(1) == 6
//
// The object keeps its buffers between problems (clear() does not free), so a caller that solves many small
// problems allocates nothing once warmed up.
#include <cstdint>
#include <span>
#include <vector>

namespace syncsim {

class MaxMinSolver {
 public:
  // Forgets the problem; keeps the memory.
  void clear();

  // A link of the given capacity (> 0); returns its index, counting from 0.
  std::uint32_t add_link(double capacity);
  // A flow crossing the given links (indices from add_link, each at most once); returns its index. A flow that
  // crosses no link is unconstrained and gets an infinite rate.
  std::uint32_t add_flow(std::span<const std::uint32_t> links);

  void solve();

  // Valid after solve().
  double rate(std::uint32_t flow) const { return rate_[flow]; }
  std::size_t link_count() const { return capacity_.size(); }
  std::size_t flow_count() const { return rate_.size(); }

 private:
  // The heap of links, ordered by (share, link index); heap_pos_ tracks each link's place for in-place updates.
  bool before(std::uint32_t a, std::uint32_t b) const {
    return share_[a] < share_[b] || (share_[a] == share_[b] && a < b);
  }
  void place(std::size_t pos, std::uint32_t link) {
    heap_[pos] = link;
    heap_pos_[link] = static_cast<std::uint32_t>(pos);
  }
  void sift_up(std::size_t pos);
  void sift_down(std::size_t pos);
  void heap_remove(std::uint32_t link);
  void heap_update(std::uint32_t link);

  // Links.
  std::vector<double> capacity_;
  std::vector<double> left_;               // capacity not yet given to fixed flows
  std::vector<std::uint32_t> unfixed_;     // flows on the link not yet fixed
  std::vector<double> share_;              // left_ / unfixed_
  std::vector<std::uint32_t> link_begin_;  // link -> flows, compressed rows built by solve()
  std::vector<std::uint32_t> link_flows_;
  std::vector<std::uint32_t> cursor_;  // fill positions while building link_flows_
  // Flows.
  std::vector<std::uint32_t> flow_begin_;  // flow -> links, compressed rows (one more entry than flows)
  std::vector<std::uint32_t> flow_links_;
  std::vector<double> rate_;
  std::vector<std::uint8_t> fixed_;  // bytes, not std::vector<bool>: this is the inner loop

  std::vector<std::uint32_t> heap_;
  std::vector<std::uint32_t> heap_pos_;
};

}  // namespace syncsim
