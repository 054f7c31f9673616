// The proxy's building blocks: each model's gradient against finite differences, the data and the sample
// stream, the exact gradient sum, and the learning-rate schedule's closed form.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "sample_stream.hpp"
#include "syncsim/convergence/learning_rate.hpp"
#include "syncsim/convergence/proxy_model.hpp"
#include "syncsim/convergence/synthetic_dataset.hpp"

namespace syncsim::convergence {
namespace {

ConvergenceConfig small_config(ProxyProblem problem) {
  ConvergenceConfig c;
  c.problem = problem;
  c.features = 5;
  c.classes = 3;
  c.hidden = 4;
  c.train_samples = 64;
  c.eval_samples = 1;
  return c;
}

// Loss of sample i alone: a one-sample dataset evaluated.
double sample_loss(ProxyModel& model, const std::vector<double>& params, const Dataset& data, std::int64_t i) {
  Dataset one{data.features, data.classes, {data.sample(i), data.sample(i) + data.features}, {data.y[i]}};
  return model.evaluate(params, one).loss;
}

TEST_CASE("each model's gradient matches central finite differences of its loss") {
  for (const ProxyProblem problem : {ProxyProblem::logistic, ProxyProblem::mlp}) {
    const ConvergenceConfig config = small_config(problem);
    const SyntheticData data = make_synthetic_data(config, 7);
    auto model = make_proxy_model(config);
    std::vector<double> params = model->initial_parameters(7);
    // Away from zero, so that every logistic weight has a non-trivial gradient too.
    for (std::size_t i = 0; i < params.size(); ++i) params[i] += 0.1 * std::sin(static_cast<double>(i));
    for (const std::int64_t sample : {0, 5, 17}) {
      GradientSum sum(model->parameter_count());
      REQUIRE(model->accumulate_gradient(params, data.train, sample, sum));
      for (std::size_t p = 0; p < params.size(); ++p) {
        const double h = 1e-5;
        std::vector<double> up = params, down = params;
        up[p] += h;
        down[p] -= h;
        const double numeric =
            (sample_loss(*model, up, data.train, sample) - sample_loss(*model, down, data.train, sample)) / (2 * h);
        INFO("problem " << to_string(problem) << ", sample " << sample << ", parameter " << p);
        CHECK(sum.mean(p, 1) == Approx(numeric).margin(2e-7));
      }
    }
  }
}

TEST_CASE("the model sizes are what their layouts say") {
  CHECK(make_proxy_model(small_config(ProxyProblem::logistic))->parameter_count() == 3 * 5 + 3);
  CHECK(make_proxy_model(small_config(ProxyProblem::mlp))->parameter_count() == 4 * 5 + 4 + 3 * 4 + 3);
}

TEST_CASE("a diverged MLP sample is refused and leaves the sum untouched") {
  const ConvergenceConfig config = small_config(ProxyProblem::mlp);
  const SyntheticData data = make_synthetic_data(config, 3);
  auto model = make_proxy_model(config);
  std::vector<double> params = model->initial_parameters(3);
  // Huge output weights W2 (after W1: 4 x 5, b1: 4) back-propagate far beyond GradientSum's range, through hidden
  // units that are not saturated.
  for (std::size_t i = 24; i < 36; ++i) params[i] *= 1e9;
  GradientSum sum(model->parameter_count());
  bool refused = false;
  for (std::int64_t i = 0; i < data.train.size() && !refused; ++i) {
    refused = !model->accumulate_gradient(params, data.train, i, sum);
    if (!refused) sum.clear();
  }
  CHECK(refused);
  for (std::size_t p = 0; p < sum.size(); ++p) CHECK(sum.mean(p, 1) == 0);
}

TEST_CASE("the gradient sum is exact: any split and order of the samples gives the same bits") {
  const ConvergenceConfig config = small_config(ProxyProblem::mlp);
  const SyntheticData data = make_synthetic_data(config, 11);
  auto model = make_proxy_model(config);
  const std::vector<double> params = model->initial_parameters(11);
  GradientSum forward(model->parameter_count());
  for (std::int64_t i = 0; i < 64; ++i) REQUIRE(model->accumulate_gradient(params, data.train, i, forward));
  GradientSum a(model->parameter_count()), b(model->parameter_count());
  for (std::int64_t i = 63; i >= 0; --i) REQUIRE(model->accumulate_gradient(params, data.train, i, i % 3 ? a : b));
  b.add(a);
  for (std::size_t p = 0; p < forward.size(); ++p) CHECK(forward.mean(p, 64) == b.mean(p, 64));
}

TEST_CASE("the synthetic data: deterministic per seed, labels in range, classes apart by about the separation") {
  ConvergenceConfig config = small_config(ProxyProblem::logistic);
  config.train_samples = 4000;
  config.features = 50;
  config.separation = 2;
  const SyntheticData a = make_synthetic_data(config, 5);
  const SyntheticData b = make_synthetic_data(config, 5);
  CHECK(a.train.x == b.train.x);
  CHECK(a.train.y == b.train.y);
  CHECK(make_synthetic_data(config, 6).train.x != a.train.x);
  CHECK(*std::max_element(a.train.y.begin(), a.train.y.end()) == 2);
  CHECK(*std::min_element(a.train.y.begin(), a.train.y.end()) == 0);
  // Class means estimated from the samples: their distances average about `separation` (2) over 3 pairs.
  std::vector<std::vector<double>> mean(3, std::vector<double>(50, 0.0));
  std::vector<double> count(3, 0.0);
  for (std::int64_t i = 0; i < a.train.size(); ++i) {
    const auto y = static_cast<std::size_t>(a.train.y[i]);
    count[y] += 1;
    for (std::size_t f = 0; f < 50; ++f) mean[y][f] += a.train.sample(i)[f];
  }
  double distances = 0;
  for (std::size_t c = 0; c < 3; ++c) {
    for (double& m : mean[c]) m /= count[c];
  }
  for (const auto& [p, q] : {std::pair{0, 1}, std::pair{0, 2}, std::pair{1, 2}}) {
    double d2 = 0;
    for (std::size_t f = 0; f < 50; ++f) d2 += (mean[p][f] - mean[q][f]) * (mean[p][f] - mean[q][f]);
    distances += std::sqrt(d2);
  }
  CHECK(distances / 3 == Approx(2.0).epsilon(0.35));
}

TEST_CASE("the sample stream: every epoch is a permutation, N workers' k-th batches are the k-th global batch") {
  SampleStream stream(100, 9);
  for (std::int64_t epoch = 0; epoch < 3; ++epoch) {
    std::set<std::int64_t> seen;
    for (std::int64_t i = 0; i < 100; ++i) seen.insert(stream.at(epoch * 100 + i));
    CHECK(seen.size() == 100);
    CHECK(*seen.begin() == 0);
    CHECK(*seen.rbegin() == 99);
  }
  CHECK(stream.at(0) != stream.at(100));  // epochs are shuffled anew (a fixed seed: this one differs)
  // Worker w of 4 reads positions w + 4j; its batch k of 3 samples is j = 3k .. 3k + 2.
  const std::int64_t workers = 4, batch = 3;
  for (std::int64_t k = 0; k < 50; ++k) {
    std::multiset<std::int64_t> by_workers, global;
    for (std::int64_t w = 0; w < workers; ++w) {
      for (std::int64_t j = k * batch; j < (k + 1) * batch; ++j) by_workers.insert(stream.at(w + workers * j));
    }
    for (std::int64_t p = k * workers * batch; p < (k + 1) * workers * batch; ++p) global.insert(stream.at(p));
    CHECK(by_workers == global);
  }
  stream.forget_before(250);
  CHECK(stream.at(260) == SampleStream(100, 9).at(260));
}

TEST_CASE("learning rate: scaling rules and linear warm-up in closed form") {
  ConvergenceConfig c;
  c.learning_rate = 0.1;
  c.batch_per_worker = 8;
  CHECK(learning_rate(c, 64, 0) == 0.1);  // none
  c.lr_scaling = LrScaling::linear;
  CHECK(learning_rate(c, 64, 0) == Approx(0.8));
  c.lr_scaling = LrScaling::sqrt;
  CHECK(learning_rate(c, 32, 0) == Approx(0.2));
  c.lr_scaling = LrScaling::linear;
  c.base_batch = 16;
  CHECK(learning_rate(c, 64, 0) == Approx(0.4));
  c.warmup_updates = 100;
  CHECK(learning_rate(c, 64, 0) == Approx(0.1));
  CHECK(learning_rate(c, 64, 50) == Approx(0.25));
  CHECK(learning_rate(c, 64, 100) == Approx(0.4));
  CHECK(learning_rate(c, 64, 1000) == Approx(0.4));
}

}  // namespace
}  // namespace syncsim::convergence
