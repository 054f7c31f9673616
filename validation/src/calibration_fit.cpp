// The calibration fit (calibration_fit.hpp explains the method).
#include "syncsim/validation/calibration_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <memory>

#include "syncsim/core/input_error.hpp"
#include "syncsim/validation/box_least_squares.hpp"

namespace syncsim {

namespace {

// The unknowns of one regime: launch, step latency per class, inverse efficiency per class (us, us, 1).
constexpr std::size_t kUnknowns = 7;
using Params = std::array<double, kUnknowns>;
constexpr std::size_t kLaunch = 0;
constexpr std::size_t latency_index(LinkKind c) {
  return 1 + static_cast<std::size_t>(c);
}
constexpr std::size_t inverse_index(LinkKind c) {
  return 4 + static_cast<std::size_t>(c);
}

constexpr std::array<const char*, 2> kRegimeNames{"latency", "bandwidth"};
constexpr std::array<Protocol, 2> kRegimeDefaults{Protocol::ll, Protocol::simple};

// Relative residuals beyond 5% count linearly (Huber): measured curves are smooth to a few percent where the
// system is quiet, and anything further off is more likely noise than shape.
constexpr double kHuberThreshold = 0.05;
// Gauss-Newton iterations (each a full re-simulation), assignment rounds per iteration, IRLS steps per round.
constexpr int kMaxIterations = 8;
constexpr int kAssignmentRounds = 4;
constexpr int kIrlsSteps = 6;
// Step halvings tried when an iteration makes the simulated objective worse.
constexpr int kMaxHalvings = 2;
// An iteration that improves the objective by less than this fraction ends the fit.
constexpr double kConvergence = 1e-3;
// Ridge towards the defaults, as a fraction of the rows' own curvature along each unknown (so it is as weak for
// a log of milliseconds as for one of microseconds): it only decides directions the measurements leave open, such
// as launch versus per-step latency on a one-class log.
constexpr double kRidgeStrength = 1e-3;
// Bounds: latencies up to 100 ms, efficiency from 1/1000 of the link rate up to kMaxEfficiency.
constexpr double kMaxLatencyUs = 1e5;
constexpr double kMaxInverseEfficiency = 1e3;
// Finite-difference steps: 10% of the value, at least 0.1 us for latencies.
constexpr double kRelativeStep = 0.1;
constexpr double kMinLatencyStepUs = 0.1;

TransferCost cost_of(const Params& p) {
  TransferCost cost;
  std::array<SimTime, 3> steps{};
  for (const LinkKind c : kLinkKinds) {
    const auto i = static_cast<std::size_t>(c);
    steps[i] = SimTime::from_us(p[latency_index(c)]);
    cost.efficiency[i] = 1.0 / p[inverse_index(c)];
  }
  cost.step_latency = steps;
  cost.launch = SimTime::from_us(p[kLaunch]);
  return cost;
}

Params params_of(const TransferCost& cost) {
  Params p{};
  p[kLaunch] = cost.launch.us();
  for (const LinkKind c : kLinkKinds) {
    const auto i = static_cast<std::size_t>(c);
    p[latency_index(c)] = (*cost.step_latency)[i].us();
    p[inverse_index(c)] = 1.0 / cost.efficiency[i];
  }
  return p;
}

double dot(const Params& a, const Params& b) {
  double sum = 0;
  for (std::size_t k = 0; k < kUnknowns; ++k) sum += a[k] * b[k];
  return sum;
}

// 6 significant digits, as the file holds them: the fit's own errors are then what `validate` reproduces.
double rounded(double value) {
  return value == 0 ? 0 : std::stod(fmt::format("{:.6g}", value));
}

struct Point {
  std::size_t system;
  Bytes size;
  double measured_us;
};

// T ~= intercept + gradient . params near the parameters it was taken at.
struct Linear {
  double value = 0;
  Params gradient{};
  double intercept = 0;
};

class Fitter {
 public:
  Fitter(const std::vector<NcclTestsLog>& logs, const std::string& family, const FitOptions& options)
      : options_(options) {
    for (const NcclTestsLog& log : logs) {
      systems_.push_back(std::make_unique<LogSystem>(log, family, options.topology_source));
      for (const MeasuredPoint& p : measured_points(log, options.placement)) {
        points_.push_back({systems_.size() - 1, p.size, p.time_us});
      }
      for (const LinkKind c : systems_.back()->link_classes()) exercised_[static_cast<std::size_t>(c)] = true;
    }
    for (std::size_t r = 0; r < kRegimeNames.size(); ++r) {
      defaults_[r] = params_of(nccl_cost(Algorithm::ring, kRegimeDefaults[r]));
    }
  }

  const std::array<bool, 3>& exercised() const { return exercised_; }
  LogSystem& system(std::size_t log) { return *systems_[log]; }
  std::size_t simulations() const { return simulations_; }

  std::array<Params, 2> fit(int& iterations) {
    std::array<Params, 2> best = defaults_;
    Evaluation at_best = evaluate(best);
    double best_objective = objective(at_best);
    std::vector<std::size_t> assignment;
    for (iterations = 1; iterations <= kMaxIterations; ++iterations) {
      const auto linear = linearize_all(best, at_best);
      std::array<Params, 2> next = solve_best_split(linear, best, assignment);
      // Only the simulated objective decides; a worse step is halved back towards the best a few times.
      Evaluation at_next = evaluate(next);
      double next_objective = objective(at_next);
      for (int halving = 0; !(next_objective < best_objective) && halving < kMaxHalvings; ++halving) {
        for (std::size_t r = 0; r < next.size(); ++r) {
          for (std::size_t k = 0; k < kUnknowns; ++k) next[r][k] = 0.5 * (next[r][k] + best[r][k]);
        }
        at_next = evaluate(next);
        next_objective = objective(at_next);
      }
      report(iterations, next_objective);
      if (!(next_objective < best_objective)) break;
      const bool converged = best_objective - next_objective < kConvergence * best_objective;
      best = next;
      at_best = std::move(at_next);
      best_objective = next_objective;
      if (converged) break;
    }
    return best;
  }

 private:
  // [point][regime]: each regime's own simulation (the fastest algorithm, or the forced one).
  using Evaluation = std::vector<std::array<CollectiveOutcome, 2>>;

  Evaluation evaluate(const std::array<Params, 2>& params) {
    Evaluation out(points_.size());
    for (std::size_t i = 0; i < points_.size(); ++i) {
      for (std::size_t r = 0; r < params.size(); ++r) {
        out[i][r] = systems_[points_[i].system]->simulate(points_[i].size, cost_of(params[r]), options_.algorithm);
        ++simulations_;
      }
    }
    return out;
  }

  // Finite differences around `params`, keeping the algorithm that won there.
  Linear linearize(const Point& point, const Params& params, const CollectiveOutcome& base) {
    LogSystem& system = *systems_[point.system];
    Linear linear;
    linear.value = base.time.us();
    linear.gradient[kLaunch] = 1;  // paid once, after the simulated part
    for (const LinkKind c : system.link_classes()) {
      for (const std::size_t k : {latency_index(c), inverse_index(c)}) {
        Params moved = params;
        const double step =
            k == latency_index(c) ? std::max(kRelativeStep * params[k], kMinLatencyStepUs) : kRelativeStep * params[k];
        moved[k] += step;
        const double time = system.simulate(point.size, cost_of(moved), base.algorithm).time.us();
        ++simulations_;
        linear.gradient[k] = (time - linear.value) / step;
      }
    }
    linear.intercept = linear.value - dot(linear.gradient, params);
    return linear;
  }

  std::vector<std::array<Linear, 2>> linearize_all(const std::array<Params, 2>& params, const Evaluation& at) {
    std::vector<std::array<Linear, 2>> out(points_.size());
    for (std::size_t i = 0; i < points_.size(); ++i) {
      for (std::size_t r = 0; r < params.size(); ++r) out[i][r] = linearize(points_[i], params[r], at[i][r]);
    }
    return out;
  }

  // The real objective: the prediction is the fastest regime.
  double objective(const Evaluation& at) const {
    double sum = 0;
    for (std::size_t i = 0; i < points_.size(); ++i) {
      const double predicted = std::min(at[i][0].time, at[i][1].time).us();
      sum += huber_loss(relative_error(predicted, points_[i].measured_us), kHuberThreshold);
    }
    return sum;
  }

  // The linear model's objective: the prediction is the fastest regime.
  double linear_objective(const std::vector<std::array<Linear, 2>>& linear, const std::array<Params, 2>& params) const {
    double sum = 0;
    for (std::size_t i = 0; i < points_.size(); ++i) {
      const double predicted = std::min(predict(linear[i][0], params[0]), predict(linear[i][1], params[1]));
      sum += huber_loss(relative_error(predicted, points_[i].measured_us), kHuberThreshold);
    }
    return sum;
  }

  // The regimes' split is not known in advance (and a poor one is a local optimum the rounds do not leave), so every
  // split point is tried: sizes up to it start in `latency`, the rest in `bandwidth`, and so does continuing from
  // the last assignment. The linear model picks the best; these solves cost no simulation.
  std::array<Params, 2> solve_best_split(const std::vector<std::array<Linear, 2>>& linear,
                                         const std::array<Params, 2>& start,
                                         std::vector<std::size_t>& assignment) const {
    std::vector<Bytes> splits;
    for (const Point& p : points_) splits.push_back(p.size);
    std::sort(splits.begin(), splits.end());
    splits.erase(std::unique(splits.begin(), splits.end()), splits.end());
    splits.pop_back();  // the largest size would leave `bandwidth` empty
    std::array<Params, 2> best{};
    std::vector<std::size_t> best_assignment;
    double best_objective = 0;
    const auto consider = [&](std::vector<std::size_t> candidate, bool keep_first) {
      const std::array<Params, 2> params = solve(linear, start, candidate, keep_first);
      const double value = linear_objective(linear, params);
      if (best_assignment.empty() || value < best_objective) {
        best = params;
        best_objective = value;
        best_assignment = std::move(candidate);
      }
    };
    if (!assignment.empty()) consider(assignment, false);
    if (splits.empty() && assignment.empty()) consider(std::vector<std::size_t>(points_.size(), 0), true);
    for (const Bytes split : splits) {
      std::vector<std::size_t> candidate(points_.size());
      for (std::size_t i = 0; i < points_.size(); ++i) candidate[i] = points_[i].size <= split ? 0 : 1;
      consider(std::move(candidate), true);
    }
    assignment = best_assignment;
    return best;
  }

  double predict(const Linear& linear, const Params& params) const {
    return linear.intercept + dot(linear.gradient, params);
  }

  std::array<Params, 2> solve(const std::vector<std::array<Linear, 2>>& linear, std::array<Params, 2> params,
                              std::vector<std::size_t>& assignment, bool keep_first_assignment) const {
    for (int round = 0; round < kAssignmentRounds; ++round) {
      if (round > 0 || !keep_first_assignment) {
        for (std::size_t i = 0; i < points_.size(); ++i) {
          double best = 0;
          for (std::size_t r = 0; r < params.size(); ++r) {
            const double error = std::abs(relative_error(predict(linear[i][r], params[r]), points_[i].measured_us));
            if (r == 0 || error < best) {
              best = error;
              assignment[i] = r;
            }
          }
        }
      }
      for (std::size_t r = 0; r < params.size(); ++r) params[r] = refit(linear, r, params[r], assignment);
    }
    return params;
  }

  // IRLS for one regime: its own points two-sided, the others' one-sided (only where it would undercut them).
  Params refit(const std::vector<std::array<Linear, 2>>& linear, std::size_t regime, Params params,
               const std::vector<std::size_t>& assignment) const {
    for (int step = 0; step < kIrlsSteps; ++step) {
      BoxLeastSquares problem(kUnknowns);
      problem.set_bounds(kLaunch, 0, kMaxLatencyUs);
      for (const LinkKind c : kLinkKinds) {
        const bool free = exercised_[static_cast<std::size_t>(c)];
        const std::size_t l = latency_index(c);
        const std::size_t x = inverse_index(c);
        problem.set_bounds(l, free ? 0 : params[l], free ? kMaxLatencyUs : params[l]);
        problem.set_bounds(x, free ? 1.0 / kMaxEfficiency : params[x], free ? kMaxInverseEfficiency : params[x]);
      }
      Params curvature{};  // the rows' own weight along each unknown: the ridge's scale
      for (std::size_t i = 0; i < points_.size(); ++i) {
        const Linear& row = linear[i][regime];
        const double m = points_[i].measured_us;
        const double residual = relative_error(predict(row, params), m);
        if (assignment[i] != regime && residual >= 0) continue;
        std::vector<double> coefficients(kUnknowns);
        for (std::size_t k = 0; k < kUnknowns; ++k) coefficients[k] = row.gradient[k] / m;
        const double weight = huber_weight(residual, kHuberThreshold);
        problem.add_row(coefficients, 1.0 - row.intercept / m, weight);
        for (std::size_t k = 0; k < kUnknowns; ++k) curvature[k] += weight * coefficients[k] * coefficients[k];
      }
      for (std::size_t k = 0; k < kUnknowns; ++k) {
        problem.set_ridge(k, defaults_[regime][k], kRidgeStrength * curvature[k]);
      }
      const Params previous = params;
      const std::vector<double> solved = problem.solve(std::vector<double>(params.begin(), params.end()));
      std::copy(solved.begin(), solved.end(), params.begin());
      double change = 0;
      for (std::size_t k = 0; k < kUnknowns; ++k) {
        change = std::max(change, std::abs(params[k] - previous[k]) / std::max(1.0, std::abs(params[k])));
      }
      if (change < 1e-6) break;
    }
    return params;
  }

  void report(int iteration, double objective) const {
    if (options_.progress) {
      options_.progress(fmt::format("calibrate: iteration {}: Huber objective {:.4g} ({} simulations)", iteration,
                                    objective, simulations_));
    }
  }

  const FitOptions& options_;
  std::vector<std::unique_ptr<LogSystem>> systems_;
  std::vector<Point> points_;
  std::array<bool, 3> exercised_{};
  std::array<Params, 2> defaults_{};
  std::size_t simulations_ = 0;
};

}  // namespace

CalibrationMeasurement measure_fit(const NcclTestsLog& log, LogSystem& system, const std::vector<MeasuredPoint>& points,
                                   const CalibratedModel& model, std::optional<Algorithm> algorithm) {
  CalibrationMeasurement m;
  m.file = std::filesystem::path(log.source).filename().string();
  m.collective = log.collective;
  m.ranks = log.ranks;
  m.hosts = log.hosts;
  m.topology = system.topology_spec();
  std::vector<double> errors;
  for (const MeasuredPoint& p : points) {
    const double predicted = system.simulate(p.size, &model, algorithm).time.us();
    m.sizes_bytes.push_back(p.size.value);
    m.measured_us.push_back(p.time_us);
    m.predicted_us.push_back(predicted);
    errors.push_back(relative_error(predicted, p.time_us));
  }
  m.fit_error = summarize_errors(m.sizes_bytes, errors);
  return m;
}

Calibration fit_calibration(const std::vector<NcclTestsLog>& logs, const std::string& topology_family,
                            const FitOptions& options, FitStats* stats) {
  if (logs.empty()) throw InputError("calibration needs at least one log");
  Fitter fitter(logs, topology_family, options);
  int iterations = 0;
  const std::array<Params, 2> fitted = fitter.fit(iterations);

  Calibration calibration;
  calibration.topology = topology_family;
  calibration.placement = options.placement;
  calibration.algorithm = options.algorithm;
  for (std::size_t r = 0; r < fitted.size(); ++r) {
    CalibrationRegime regime;
    regime.name = kRegimeNames[r];
    regime.launch_us = rounded(fitted[r][kLaunch]);
    for (const LinkKind c : kLinkKinds) {
      LinkCalibration& link = regime.links[static_cast<std::size_t>(c)];
      link.step_latency_us = rounded(fitted[r][latency_index(c)]);
      link.efficiency = std::min(rounded(1.0 / fitted[r][inverse_index(c)]), kMaxEfficiency);
      link.fitted = fitter.exercised()[static_cast<std::size_t>(c)];
    }
    calibration.regimes.push_back(regime);
  }
  const CalibratedModel model = to_model(calibration);
  for (std::size_t l = 0; l < logs.size(); ++l) {
    calibration.measurements.push_back(
        measure_fit(logs[l], fitter.system(l), measured_points(logs[l], options.placement), model, options.algorithm));
  }
  if (stats) {
    stats->iterations = iterations;
    stats->simulations = fitter.simulations();
  }
  return calibration;
}

}  // namespace syncsim
