#pragma once
// GradientCompressor: the mean of the workers' gradients as a DDP compression hook delivers it to every worker
// (gradient_compression.hpp has the hooks), replayed on the proxy's parameters so that time-to-accuracy shows
// what compression costs in steps.
//
//   fp16, bf16  each worker's gradient / N rounded to the 16-bit format (round to nearest even; fp16 overflows
//               to infinity past 65504), summed, the sum rounded once more (NCCL sums in 16 bits; the order of
//               its partial sums is not modelled)
//   powersgd    per matrix with a rank r' (powersgd_rank): M_w = gradient (+ E_w), P = mean_w M_w Q,
//               P orthogonalized (Gram-Schmidt on its columns), Q = mean_w M_w^T P, the update P Q^T, and
//               E_w = M_w - P Q^T with error feedback; Q starts as seeded standard normals, orthogonalized, and
//               is kept from one update to the next (warm start). Vectors and small matrices are averaged as
//               they are.
//   topk        M_w = gradient (+ E_w); worker w keeps the k = ceil(ratio x parameters) entries of largest
//               magnitude (ties to the lower index), the update is their mean over the workers, and
//               E_w = M_w - what it kept
// The proxy's whole gradient is one bucket. Error state is per worker, kept across membership changes.
#include <cstdint>
#include <span>
#include <vector>

#include "syncsim/convergence/proxy_model.hpp"
#include "syncsim/training/gradient_compression.hpp"

namespace syncsim::convergence {

class GradientCompressor {
 public:
  GradientCompressor(const GradientCompression& compression, std::vector<ParameterTensor> tensors,
                     std::size_t parameters, std::int64_t workers, std::uint64_t seed);

  // gradients[i] is members[i]'s mean gradient; `out` gets the update direction every worker applies.
  void average(const std::vector<std::vector<double>>& gradients, std::span<const std::int64_t> members,
               std::vector<double>& out);
  // Worker w's error (error feedback): what it produced and has not sent yet; empty before its first update.
  const std::vector<double>& error(std::int64_t worker) const { return errors_.at(static_cast<std::size_t>(worker)); }

 private:
  void half_precision(const std::vector<std::vector<double>>& gradients, std::vector<double>& out) const;
  void powersgd(const std::vector<std::vector<double>>& inputs, std::vector<double>& out);
  // Returns what each worker sent (its k entries, zeros elsewhere).
  std::vector<std::vector<double>> topk(const std::vector<std::vector<double>>& inputs, std::vector<double>& out) const;
  // The workers' inputs: their gradients plus their error (with error feedback).
  std::vector<std::vector<double>> with_errors(const std::vector<std::vector<double>>& gradients,
                                               std::span<const std::int64_t> members);
  // E_w = input - what worker w's input became on the wire (sent_of(m) for the m-th member).
  template <typename SentOf>
  void keep_errors(const std::vector<std::vector<double>>& inputs, std::span<const std::int64_t> members,
                   SentOf&& sent_of) {
    for (std::size_t m = 0; m < inputs.size(); ++m) {
      std::vector<double>& error = errors_[static_cast<std::size_t>(members[m])];
      const std::vector<double>& sent = sent_of(m);
      error.resize(parameters_);
      for (std::size_t i = 0; i < parameters_; ++i) error[i] = inputs[m][i] - sent[i];
    }
  }

  GradientCompression compression_;
  std::vector<ParameterTensor> tensors_;
  std::size_t parameters_;
  std::vector<std::vector<double>> errors_;  // per worker, allocated on first use
  std::vector<std::vector<double>> q_;       // per tensor: cols x r' (row-major), empty when not compressed
  std::vector<std::int64_t> ranks_;          // per tensor: r', 0 when sent as it is
};

// x rounded to IEEE binary16 (fp16) or bfloat16, round to nearest even; fp16 overflows to infinity.
double round_to_fp16(double x);
double round_to_bf16(double x);

}  // namespace syncsim::convergence
