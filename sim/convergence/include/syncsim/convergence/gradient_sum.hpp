#pragma once
// GradientSum: a sum of per-sample gradients in fixed point (units of 2^-24), so that it is exact and the same
// whatever the order of the samples and however they were split among workers — like a deterministic
// AllReduce. That is what makes synchronous SGD on N workers reproduce one worker with the global batch bit
// for bit. A per-sample component is rounded to 2^-24 (6e-8), finer than the float32 of real training.
//
// Range: a per-sample component must stay below 2^20 in magnitude (the replay reports divergence beyond it), and
// one update sums at most kMaxBatch samples, so no sum can overflow 64 bits.
#include <cmath>
#include <cstdint>
#include <vector>

namespace syncsim::convergence {

class GradientSum {
 public:
  static constexpr double kScale = 16777216.0;          // 2^24
  static constexpr double kMaxComponent = 1048576.0;    // 2^20
  static constexpr std::int64_t kMaxBatch = 1 << 18;    // 2^18 x 2^20 x 2^24 = 2^62
  static constexpr double kRound = 6755399441055744.0;  // 1.5 x 2^52

  explicit GradientSum(std::size_t parameters) : sum_(parameters, 0) {}

  void clear() { std::fill(sum_.begin(), sum_.end(), 0); }
  // The caller checks |value| < kMaxComponent (ProxyModel does). Rounds to nearest (ties to even) by adding and
  // subtracting 1.5 x 2^52, exact for |value x kScale| < 2^51: plain arithmetic the compiler keeps inline, where a
  // call to llrint per component would cost more than the gradient itself.
  void add(std::size_t i, double value) { sum_[i] += static_cast<std::int64_t>((value * kScale + kRound) - kRound); }
  // Components first .. first + n - 1 get scale x v[k]: one row of an outer product, the hot loop of every model.
  void add_scaled(std::size_t first, double scale, const double* v, std::size_t n) {
    std::int64_t* out = sum_.data() + first;
    for (std::size_t k = 0; k < n; ++k) out[k] += static_cast<std::int64_t>((scale * v[k] * kScale + kRound) - kRound);
  }
  void add(const GradientSum& other) {
    for (std::size_t i = 0; i < sum_.size(); ++i) sum_[i] += other.sum_[i];
  }
  // The mean gradient's component i over `samples` samples.
  double mean(std::size_t i, std::int64_t samples) const {
    return static_cast<double>(sum_[i]) / (kScale * static_cast<double>(samples));
  }
  std::size_t size() const { return sum_.size(); }

 private:
  std::vector<std::int64_t> sum_;
};

}  // namespace syncsim::convergence
