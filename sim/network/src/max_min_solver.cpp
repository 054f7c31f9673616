#include "syncsim/network/max_min_solver.hpp"

#include <algorithm>
#include <limits>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

void MaxMinSolver::clear() {
  capacity_.clear();
  left_.clear();
  unfixed_.clear();
  share_.clear();
  link_begin_.clear();
  link_flows_.clear();
  flow_begin_.clear();
  flow_links_.clear();
  rate_.clear();
  fixed_.clear();
  heap_.clear();
  heap_pos_.clear();
}

std::uint32_t MaxMinSolver::add_link(double capacity) {
  SYNCSIM_INVARIANT(capacity > 0, "max-min solver: a link's capacity must be positive");
  capacity_.push_back(capacity);
  return static_cast<std::uint32_t>(capacity_.size() - 1);
}

std::uint32_t MaxMinSolver::add_flow(std::span<const std::uint32_t> links) {
  if (flow_begin_.empty()) flow_begin_.push_back(0);
  for (const std::uint32_t link : links) {
    SYNCSIM_INVARIANT(link < capacity_.size(), "max-min solver: a flow crosses an unknown link");
    flow_links_.push_back(link);
  }
  flow_begin_.push_back(static_cast<std::uint32_t>(flow_links_.size()));
  rate_.push_back(0);
  return static_cast<std::uint32_t>(rate_.size() - 1);
}

void MaxMinSolver::sift_up(std::size_t pos) {
  const std::uint32_t link = heap_[pos];
  while (pos > 0) {
    const std::size_t parent = (pos - 1) / 2;
    if (!before(link, heap_[parent])) break;
    place(pos, heap_[parent]);
    pos = parent;
  }
  place(pos, link);
}

void MaxMinSolver::sift_down(std::size_t pos) {
  const std::uint32_t link = heap_[pos];
  const std::size_t size = heap_.size();
  for (;;) {
    std::size_t child = 2 * pos + 1;
    if (child >= size) break;
    if (child + 1 < size && before(heap_[child + 1], heap_[child])) ++child;
    if (!before(heap_[child], link)) break;
    place(pos, heap_[child]);
    pos = child;
  }
  place(pos, link);
}

void MaxMinSolver::heap_remove(std::uint32_t link) {
  const std::size_t pos = heap_pos_[link];
  const std::uint32_t last = heap_.back();
  heap_.pop_back();
  if (last == link) return;
  place(pos, last);
  sift_up(pos);
  sift_down(heap_pos_[last]);
}

void MaxMinSolver::heap_update(std::uint32_t link) {
  // Shares only grow as flows are fixed, but rounding may nudge one down: allow both directions.
  sift_up(heap_pos_[link]);
  sift_down(heap_pos_[link]);
}

void MaxMinSolver::solve() {
  const std::size_t links = capacity_.size();
  const std::size_t flows = rate_.size();
  if (flow_begin_.empty()) flow_begin_.push_back(0);

  left_.assign(capacity_.begin(), capacity_.end());
  unfixed_.assign(links, 0);
  fixed_.assign(flows, 0);

  // Transpose flow -> links into link -> flows (a counting sort; no per-link vectors).
  for (const std::uint32_t link : flow_links_) ++unfixed_[link];
  link_begin_.assign(links + 1, 0);
  for (std::size_t l = 0; l < links; ++l) link_begin_[l + 1] = link_begin_[l] + unfixed_[l];
  link_flows_.resize(flow_links_.size());
  cursor_.assign(link_begin_.begin(), link_begin_.end() - 1);
  for (std::uint32_t f = 0; f < flows; ++f) {
    for (std::uint32_t i = flow_begin_[f]; i < flow_begin_[f + 1]; ++i) link_flows_[cursor_[flow_links_[i]]++] = f;
  }

  share_.assign(links, 0);
  heap_pos_.assign(links, 0);
  heap_.clear();
  for (std::uint32_t l = 0; l < links; ++l) {
    if (unfixed_[l] == 0) continue;
    share_[l] = left_[l] / unfixed_[l];
    heap_.push_back(l);
  }
  for (std::size_t pos = 0; pos < heap_.size(); ++pos) heap_pos_[heap_[pos]] = static_cast<std::uint32_t>(pos);
  for (std::size_t pos = heap_.size() / 2; pos-- > 0;) sift_down(pos);

  while (!heap_.empty()) {
    // The link with the smallest share saturates first: every flow still unfixed on it gets that share.
    const std::uint32_t link = heap_.front();
    heap_remove(link);
    const double share = share_[link];
    for (std::uint32_t i = link_begin_[link]; i < link_begin_[link + 1]; ++i) {
      const std::uint32_t f = link_flows_[i];
      if (fixed_[f] != 0) continue;
      fixed_[f] = 1;
      rate_[f] = share;
      for (std::uint32_t j = flow_begin_[f]; j < flow_begin_[f + 1]; ++j) {
        const std::uint32_t other = flow_links_[j];
        if (other == link) continue;
        // Rounding may leave a hair below zero on a link that saturates at the same share; that is zero.
        left_[other] = std::max(0.0, left_[other] - share);
        if (--unfixed_[other] == 0) {
          heap_remove(other);
        } else {
          share_[other] = left_[other] / unfixed_[other];
          heap_update(other);
        }
      }
    }
    left_[link] = 0;
    unfixed_[link] = 0;
  }

  // Flows that cross no link were never fixed: nothing limits them.
  for (std::uint32_t f = 0; f < flows; ++f) {
    if (fixed_[f] == 0) rate_[f] = std::numeric_limits<double>::infinity();
  }
}

}  // namespace syncsim
