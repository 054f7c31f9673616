#pragma once
// PointQueue: which point a sweep or plan thread runs next (sweep_runner.hpp, run_points_with's `weight`).
#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "syncsim/planner/sweep_runner.hpp"

namespace syncsim::planner {

class PointQueue {
 public:
  struct Taken {
    std::size_t slot = 0;  // into `which`
    std::int64_t weight = 0;
  };

  PointQueue(const std::vector<SweepPoint>& points, const std::vector<std::size_t>& which, const PointWeight& weight)
      : weights_(which.size(), 0), taken_(which.size(), false) {
    std::int64_t heaviest = 0;
    if (weight) {
      for (std::size_t s = 0; s < which.size(); ++s) {
        weights_[s] = weight(points.at(which[s]));
        heaviest = std::max(heaviest, weights_[s]);
      }
    }
    budget_ = heaviest + heaviest / 2;
  }

  // The first point left that fits beside those running, waiting while none does; nullopt once every point is taken
  // or `going()` turns false. A thread waits only while another runs a point, whose release() wakes it.
  template <typename Going>
  std::optional<Taken> take(const Going& going) {
    std::unique_lock guard(mutex_);
    while (true) {
      while (first_open_ < taken_.size() && taken_[first_open_]) ++first_open_;
      if (first_open_ == taken_.size() || !going()) return std::nullopt;
      for (std::size_t s = first_open_; s < taken_.size(); ++s) {
        if (taken_[s] || (running_ > 0 && running_ + weights_[s] > budget_)) continue;
        taken_[s] = true;
        running_ += weights_[s];
        return Taken{s, weights_[s]};
      }
      freed_.wait(guard);
    }
  }

  void release(const Taken& taken) {
    {
      const std::lock_guard guard(mutex_);
      running_ -= taken.weight;
    }
    freed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<std::int64_t> weights_;  // all 0 without a weight: every point fits
  std::vector<bool> taken_;
  std::size_t first_open_ = 0;
  std::int64_t running_ = 0;
  std::int64_t budget_ = 0;
};

}  // namespace syncsim::planner
