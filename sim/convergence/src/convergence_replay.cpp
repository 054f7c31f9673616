#include "syncsim/convergence/convergence_replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <memory>
#include <numeric>
#include <stdexcept>

#include "gradient_compressor.hpp"
#include "sample_stream.hpp"
#include "syncsim/convergence/learning_rate.hpp"
#include "syncsim/convergence/proxy_model.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim::convergence {

namespace {

constexpr std::int64_t kCurvePoints = 100;   // default evaluations in a run
constexpr std::int64_t kForgetEvery = 1024;  // updates between prunes of old epochs' sample orders
constexpr double kExplodedLoss = 100;        // x the initial loss: the run has diverged

// Updates between evaluations: the scenario's, or about kCurvePoints of them over the run.
std::int64_t eval_interval(const ConvergenceConfig& config, const UpdateSchedule& schedule) {
  return config.eval_every.value_or(
      std::max<std::int64_t>(1, (std::ssize(schedule.updates) + kCurvePoints - 1) / kCurvePoints));
}

class Replay {
 public:
  Replay(const ConvergenceConfig& config, std::uint64_t seed, const UpdateSchedule& schedule)
      : config_(config),
        schedule_(schedule),
        data_(make_synthetic_data(config, seed)),
        model_(make_proxy_model(config)),
        stream_(config.train_samples, seed),
        sum_(model_->parameter_count()),
        positions_(static_cast<std::size_t>(schedule.workers), 0),
        params_(model_->initial_parameters(seed)) {
    result_.eval_every = eval_interval(config, schedule);
    check_batches();
    find_last_uses();
    if (schedule.sparse_staleness > 0) sparse_ = model_->tensors().front();
    if (schedule.kind == ScheduleKind::synchronous && schedule.compression.enabled()) {
      compressor_.emplace(schedule.compression, model_->tensors(), model_->parameter_count(), schedule.workers, seed);
    }
  }

  ConvergenceResult run() {
    evaluate(0, SimTime::zero(), params_);
    switch (schedule_.kind) {
      case ScheduleKind::synchronous:
        run_synchronous();
        break;
      case ScheduleKind::local:
        run_local();
        break;
      case ScheduleKind::asynchronous:
        run_asynchronous();
        break;
    }
    result_.parameters = params_;
    return std::move(result_);
  }

 private:
  // The workers whose samples an update from `source` reads: a member set, or an asynchronous client's group.
  std::vector<std::int64_t> workers_of(std::int64_t source) const {
    if (schedule_.kind != ScheduleKind::asynchronous) return schedule_.member_sets.at(static_cast<std::size_t>(source));
    std::vector<std::int64_t> group(static_cast<std::size_t>(schedule_.group_size));
    std::iota(group.begin(), group.end(), source * schedule_.group_size);
    return group;
  }

  // last_use_[w]: the last update (1-based) that reads worker w's samples; 0 for none. Per member set or client
  // first, so that a schedule of many updates over thousands of workers costs one pass.
  void find_last_uses() {
    std::map<std::int64_t, std::int64_t> last_by_source;
    for (std::size_t u = 0; u < schedule_.updates.size(); ++u) {
      last_by_source[schedule_.updates[u].source] = static_cast<std::int64_t>(u) + 1;
    }
    last_use_.assign(positions_.size(), 0);
    for (const auto& [source, last] : last_by_source) {
      for (const std::int64_t w : workers_of(source)) {
        if (w < 0 || w >= std::ssize(positions_)) {
          throw std::logic_error(fmt::format("schedule: worker {} out of {}", w, positions_.size()));
        }
        std::int64_t& use = last_use_[static_cast<std::size_t>(w)];
        use = std::max(use, last);
      }
    }
  }

  void check_batches() const {
    std::int64_t widest = schedule_.group_size;
    for (const auto& members : schedule_.member_sets) widest = std::max<std::int64_t>(widest, std::ssize(members));
    if (schedule_.kind == ScheduleKind::local) widest = 1;
    if (widest * config_.batch_per_worker > GradientSum::kMaxBatch) {
      throw InputError(fmt::format("one update would average {} workers x {} samples, more than the proxy's {}; "
                                   "lower convergence.batch_per_worker",
                                   widest, config_.batch_per_worker, GradientSum::kMaxBatch),
                       config_.where, "convergence.batch_per_worker");
    }
  }

  // Adds the gradients of worker w's next batch at `params` to sum_; false when training has diverged.
  bool add_batch(std::int64_t w, std::span<const double> params) {
    std::int64_t& next = positions_[static_cast<std::size_t>(w)];
    for (std::int64_t k = 0; k < config_.batch_per_worker; ++k, ++next) {
      const std::int64_t sample = stream_.at(w + schedule_.workers * next);
      if (!model_->accumulate_gradient(params, data_.train, sample, sum_)) return false;
    }
    return true;
  }

  void descend(std::vector<double>& params, std::int64_t batch, std::int64_t update) {
    const double rate = learning_rate(config_, batch, update);
    for (std::size_t i = 0; i < params.size(); ++i) params[i] -= rate * sum_.mean(i, batch);
  }

  // After update number `applied` (1-based) at `at`: counts it, evaluates when due; false when training diverged.
  bool applied(std::int64_t applied, SimTime at, std::int64_t samples, std::span<const double> params) {
    result_.updates = applied;
    result_.samples += samples;
    if (applied % kForgetEvery == 0) forget_old_epochs(applied);
    const bool last = applied == std::ssize(schedule_.updates);
    if (applied % result_.eval_every == 0 || last) return evaluate(applied, at, params);
    return true;
  }

  bool evaluate(std::int64_t update, SimTime at, std::span<const double> params) {
    const Evaluation e = model_->evaluate(params, data_.eval);
    if (!std::isfinite(e.loss)) return diverged(update, at);
    result_.curve.push_back({update, at, result_.samples, e.loss, e.accuracy});
    if (e.loss > kExplodedLoss * result_.curve.front().loss) return diverged(update, at);
    if (config_.target_loss && !result_.time_to_target && e.loss <= config_.target_loss->value) {
      result_.time_to_target = at;
      result_.updates_to_target = update;
    }
    return true;
  }

  bool diverged(std::int64_t update, SimTime at) {
    result_.diverged_at_update = update;
    result_.diverged_at = at;
    return false;
  }

  void forget_old_epochs(std::int64_t applied) {
    std::int64_t earliest = -1;
    for (std::size_t w = 0; w < positions_.size(); ++w) {
      if (last_use_[w] <= applied) continue;  // reads nothing more
      const std::int64_t position = static_cast<std::int64_t>(w) + schedule_.workers * positions_[w];
      if (earliest < 0 || position < earliest) earliest = position;
    }
    if (earliest >= 0) stream_.forget_before(earliest);
  }

  // One synchronous update through the compression hook: each member's mean gradient, compressed and averaged
  // as every worker receives it. False when training has diverged.
  bool compressed_update(const ScheduledUpdate& update, const std::vector<std::int64_t>& members, std::size_t u) {
    gradients_.resize(members.size());
    for (std::size_t m = 0; m < members.size(); ++m) {
      sum_.clear();
      if (!add_batch(members[m], params_)) return diverged(static_cast<std::int64_t>(u) + 1, update.at);
      std::vector<double>& g = gradients_[m];
      g.resize(params_.size());
      for (std::size_t i = 0; i < g.size(); ++i) g[i] = sum_.mean(i, config_.batch_per_worker);
    }
    compressor_->average(gradients_, members, direction_);
    const std::int64_t batch = std::ssize(members) * config_.batch_per_worker;
    const double rate = learning_rate(config_, batch, static_cast<std::int64_t>(u));
    for (std::size_t i = 0; i < params_.size(); ++i) params_[i] -= rate * direction_[i];
    return applied(static_cast<std::int64_t>(u) + 1, update.at, batch, params_);
  }

  void run_synchronous() {
    for (std::size_t u = 0; u < schedule_.updates.size(); ++u) {
      const ScheduledUpdate& update = schedule_.updates[u];
      const auto& members = schedule_.member_sets.at(static_cast<std::size_t>(update.source));
      if (compressor_ && static_cast<std::int64_t>(u) >= schedule_.compression.start_iteration) {
        if (!compressed_update(update, members, u)) return;
        continue;
      }
      sum_.clear();
      const std::vector<double>& read = stale_read();
      for (const std::int64_t w : members) {
        if (!add_batch(w, read)) {
          diverged(static_cast<std::int64_t>(u) + 1, update.at);
          return;
        }
      }
      const std::int64_t batch = std::ssize(members) * config_.batch_per_worker;
      keep_sparse_history();
      descend(params_, batch, static_cast<std::int64_t>(u));
      if (!applied(static_cast<std::int64_t>(u) + 1, update.at, batch, params_)) return;
    }
  }

  // The parameters the next update's gradients are computed on: the current ones, with (hybrid schedule) the first
  // tensor as it was sparse_staleness updates ago, or as far back as there has been updates.
  const std::vector<double>& stale_read() {
    if (schedule_.sparse_staleness <= 0 || sparse_history_.empty()) return params_;
    const auto lag =
        static_cast<std::size_t>(std::min<std::int64_t>(schedule_.sparse_staleness, std::ssize(sparse_history_)));
    read_ = params_;
    const std::vector<double>& old = sparse_history_[sparse_history_.size() - lag];
    std::copy(old.begin(), old.end(), read_.begin() + static_cast<std::ptrdiff_t>(sparse_.offset));
    return read_;
  }

  // Before an update: the first tensor as it is now, kept for sparse_staleness updates.
  void keep_sparse_history() {
    if (schedule_.sparse_staleness <= 0) return;
    const auto begin = params_.begin() + static_cast<std::ptrdiff_t>(sparse_.offset);
    sparse_history_.emplace_back(begin, begin + static_cast<std::ptrdiff_t>(sparse_.rows * sparse_.cols));
    if (std::ssize(sparse_history_) > schedule_.sparse_staleness) sparse_history_.pop_front();
  }

  void run_local() {
    std::vector<std::vector<double>> copies(positions_.size(), params_);
    std::vector<std::int64_t> steps(positions_.size(), 0);
    std::vector<double> mean(params_.size());
    for (std::size_t u = 0; u < schedule_.updates.size(); ++u) {
      const ScheduledUpdate& update = schedule_.updates[u];
      const auto& members = schedule_.member_sets.at(static_cast<std::size_t>(update.source));
      for (const std::int64_t w : members) {
        sum_.clear();
        auto& copy = copies[static_cast<std::size_t>(w)];
        if (!add_batch(w, copy)) {
          diverged(static_cast<std::int64_t>(u) + 1, update.at);
          return;
        }
        descend(copy, config_.batch_per_worker, steps[static_cast<std::size_t>(w)]++);
      }
      // The model a step stands for is the members' average: what averaging would produce now.
      std::fill(mean.begin(), mean.end(), 0.0);
      for (const std::int64_t w : members) {
        const auto& copy = copies[static_cast<std::size_t>(w)];
        for (std::size_t i = 0; i < mean.size(); ++i) mean[i] += copy[i];
      }
      for (double& m : mean) m /= static_cast<double>(members.size());
      if (update.average) {
        for (const std::int64_t w : members) copies[static_cast<std::size_t>(w)] = mean;
      }
      params_ = mean;
      const std::int64_t samples = std::ssize(members) * config_.batch_per_worker;
      if (!applied(static_cast<std::int64_t>(u) + 1, update.at, samples, params_)) return;
    }
  }

  void run_asynchronous() {
    std::map<std::int64_t, std::int64_t> reads;  // version -> updates still to be computed on it
    for (const ScheduledUpdate& u : schedule_.updates) ++reads[u.read_version];
    std::map<std::int64_t, std::vector<double>> kept;  // versions some client still holds
    std::int64_t version = 0;
    for (std::size_t u = 0; u < schedule_.updates.size(); ++u) {
      const ScheduledUpdate& update = schedule_.updates[u];
      if (update.read_version > version ||
          (update.read_version < version && kept.find(update.read_version) == kept.end())) {
        throw std::logic_error(fmt::format("update {} read version {}, which the server never kept (at {})", u,
                                           update.read_version, version));
      }
      const std::vector<double>& read =
          update.read_version == version ? params_ : kept.find(update.read_version)->second;
      sum_.clear();
      // A client is a group of consecutive workers (one worker without hybrid).
      for (std::int64_t w = update.source * schedule_.group_size; w < (update.source + 1) * schedule_.group_size; ++w) {
        if (!add_batch(w, read)) {
          diverged(static_cast<std::int64_t>(u) + 1, update.at);
          return;
        }
      }
      if (--reads[update.read_version] == 0) {
        reads.erase(update.read_version);
        kept.erase(update.read_version);
      }
      // A client that read the current version and has not pushed yet still needs it as it is now.
      if (reads.count(version) && !kept.count(version)) kept.emplace(version, params_);
      const std::int64_t batch = schedule_.group_size * config_.batch_per_worker;
      descend(params_, batch, version);
      ++version;
      if (!applied(static_cast<std::int64_t>(u) + 1, update.at, batch, params_)) return;
    }
  }

  const ConvergenceConfig& config_;
  const UpdateSchedule& schedule_;
  SyntheticData data_;
  std::unique_ptr<ProxyModel> model_;
  SampleStream stream_;
  GradientSum sum_;
  std::vector<std::int64_t> positions_;  // per worker: samples read so far
  std::vector<std::int64_t> last_use_;   // per worker: the last update (1-based) that reads its samples
  std::vector<double> params_;
  std::optional<GradientCompressor> compressor_;    // synchronous updates through a compression hook
  std::vector<std::vector<double>> gradients_;      // per member: its mean gradient (compressed updates)
  std::vector<double> direction_;                   // the update's direction (compressed updates)
  ParameterTensor sparse_;                          // hybrid: the tensor read stale (the first)
  std::deque<std::vector<double>> sparse_history_;  // hybrid: its values before the last sparse_staleness updates
  std::vector<double> read_;                        // hybrid: the parameters a gradient is computed on
  ConvergenceResult result_;
};

// What the proxy may hold and do. The keys' own limits (4,096 features, classes and hidden units; 4M samples) keep
// each one sane, not their product: 4M samples of 4,096 features are 137 GB, and a 4,096-wide MLP evaluated on 512
// samples a hundred times is 10^12 multiply-adds (found by fuzzing: it ran for minutes, then hours). The data set
// is capped at 1 GiB of doubles; the work at about two minutes on a loaded 2-core machine, 2^36 multiply-adds (it
// does about 1 G a second): the examples' proxies have the default sizes, tens to hundreds of parameters.
constexpr double kMaxDataValues = double(std::int64_t{1} << 27);
constexpr double kMaxMultiplyAdds = double(std::int64_t{1} << 36);

void check_proxy_cost(const ConvergenceConfig& config, const UpdateSchedule& schedule) {
  const double data_values = double(config.train_samples + config.eval_samples) * double(config.features);
  if (data_values > kMaxDataValues) {
    throw InputError(
        fmt::format("the proxy's data set would hold {:.3g} values ({} + {} samples of {} features), "
                    "more than its {:.3g} (1 GiB): fewer samples or features",
                    data_values, config.train_samples, config.eval_samples, config.features, kMaxDataValues),
        config.where, "convergence");
  }
  const double parameters = double(make_proxy_model(config)->parameter_count());
  std::int64_t widest = schedule.kind == ScheduleKind::local ? 1 : std::max<std::int64_t>(1, schedule.group_size);
  for (const auto& members : schedule.member_sets) widest = std::max<std::int64_t>(widest, std::ssize(members));
  const double updates = double(schedule.updates.size());
  const double trained = updates * double(widest * config.batch_per_worker);
  const double every = double(eval_interval(config, schedule));
  const double evaluated = (std::floor(updates / every) + 2) * double(config.eval_samples);
  const double work = parameters * (trained + evaluated + updates) + data_values;
  if (work > kMaxMultiplyAdds) {
    throw InputError(fmt::format("training the convergence proxy would take {:.3g} multiply-adds ({:.3g} parameters "
                                 "x {:.3g} samples trained and evaluated), more than its budget of {:.3g} (about "
                                 "two minutes): fewer features, classes or hidden units, fewer samples or a rarer "
                                 "eval_every",
                                 work, parameters, trained + evaluated, kMaxMultiplyAdds),
                     config.where, "convergence");
  }
}

}  // namespace

ConvergenceResult replay_convergence(const ConvergenceConfig& config, std::uint64_t seed,
                                     const UpdateSchedule& schedule) {
  check_proxy_cost(config, schedule);
  return Replay(config, seed, schedule).run();
}

}  // namespace syncsim::convergence
