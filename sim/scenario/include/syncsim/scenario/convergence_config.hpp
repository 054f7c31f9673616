#pragma once
// The `convergence:` section: the learning problem replayed under the simulated schedule (docs/convergence.md).
//
// A small, real learning problem — multinomial logistic regression or a two-layer MLP on a synthetic dataset drawn
// from the scenario's seed — is trained alongside the simulation: each gradient on the parameter version the
// worker actually held, each update applied when and how the strategy applies it. It says which strategy reaches
// a target loss first, not only which one runs more iterations per second.
#include <cstdint>
#include <optional>

#include "syncsim/scenario/located.hpp"

namespace syncsim {

enum class ProxyProblem { logistic, mlp };
// How the learning rate follows the batch an update averages over: none; linear (Goyal et al., 2017: the rate
// grows with the batch); sqrt (the rate grows with its square root).
enum class LrScaling { none, linear, sqrt };

struct ConvergenceConfig {
  SourceLocation where;  // the section, for errors about it as a whole
  ProxyProblem problem = ProxyProblem::logistic;
  std::int64_t features = 8;
  std::int64_t classes = 4;
  std::int64_t hidden = 16;  // mlp: hidden units (tanh)
  std::int64_t train_samples = 4096;
  std::int64_t eval_samples = 512;  // held out: the reported loss and accuracy are measured on these
  // Distance between class means in noise standard deviations (about; the means are drawn at random). Lower is
  // harder: the best reachable loss rises.
  double separation = 3.0;
  std::int64_t batch_per_worker = 4;       // samples per worker per step of the proxy (not the model's batch)
  double learning_rate = 0.05;             // plain SGD, at base_batch
  std::optional<std::int64_t> base_batch;  // the batch learning_rate is meant for; default batch_per_worker
  LrScaling lr_scaling = LrScaling::none;
  std::int64_t warmup_updates = 0;  // the rate ramps from learning_rate to its scaled value over these updates
  std::optional<Located<double>> target_loss;
  std::optional<std::int64_t> eval_every;  // updates between evaluations; default: about 200 points in the run
};

std::string_view to_string(ProxyProblem problem);
std::string_view to_string(LrScaling scaling);

}  // namespace syncsim
