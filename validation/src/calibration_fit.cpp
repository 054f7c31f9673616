// The calibration fit (calibration_fit.hpp explains the method).
#include "syncsim/validation/calibration_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>

#include "calibration_extras.hpp"
#include "calibration_unknowns.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/validation/box_least_squares.hpp"

namespace syncsim {

namespace {

using namespace calibration_unknowns;

// Relative residuals beyond 5% count linearly (Huber): measured curves are smooth to a few percent where the
// system is quiet, and anything further off is more likely noise than shape.
constexpr double kHuberThreshold = 0.05;
// Each log's largest size is an anchor, fitted as a square with this weight: its time is bandwidth alone (the
// asymptotic bus bandwidth the efficiencies stand for), the least noisy point of the log, and the one a bigger
// system's large messages extrapolate from. Without it a log whose middle sizes sit on a slower plateau (the A100
// 2-node log's 64-256 MiB) pulls the fitted bandwidth down to a compromise that misses every larger size.
constexpr double kAnchorWeight = 100;
// Gauss-Newton iterations (each a full re-simulation), assignment rounds per iteration, IRLS steps per round.
constexpr int kMaxIterations = 8;
constexpr int kAssignmentRounds = 4;
constexpr int kIrlsSteps = 6;
// Step halvings tried when an iteration makes the simulated objective worse.
constexpr int kMaxHalvings = 5;
// An iteration that improves the objective by less than this fraction ends the fit.
constexpr double kConvergence = 1e-3;
// Ridge towards the defaults, as a fraction of the rows' own curvature along each unknown (so it is as weak for
// a log of milliseconds as for one of microseconds): it only decides directions the measurements leave open, such
// as launch versus per-step latency on a one-class log.
constexpr double kRidgeStrength = 1e-3;
// Finite-difference steps: 10% of the value, at least 0.1 us for latencies and 64 KiB for the fill.
constexpr double kRelativeStep = 0.1;
constexpr double kMinLatencyStepUs = 0.1;
constexpr double kMinFillStepBytes = 65536;

struct Point {
  std::size_t system;
  Bytes size;
  double measured_us;
  bool anchor = false;  // its log's largest size (see kAnchorWeight)
};

// The loss of one relative residual: Huber for every point, a plain square with kAnchorWeight for an anchor.
double point_loss(const Point& point, double residual) {
  return point.anchor ? kAnchorWeight * 0.5 * residual * residual : huber_loss(residual, kHuberThreshold);
}

double point_weight(const Point& point, double residual) {
  return point.anchor ? kAnchorWeight : huber_weight(residual, kHuberThreshold);
}

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
      const std::size_t first = points_.size();
      for (const MeasuredPoint& p : measured_points(log, options.placement)) {
        points_.push_back({systems_.size() - 1, p.size, p.time_us});
        fastest_us_ = points_.size() == 1 ? p.time_us : std::min(fastest_us_, p.time_us);
      }
      const auto largest = std::max_element(points_.begin() + static_cast<std::ptrdiff_t>(first), points_.end(),
                                            [](const Point& a, const Point& b) { return a.size < b.size; });
      if (largest != points_.end()) largest->anchor = true;
      max_fill_bytes_ =
          std::max(max_fill_bytes_,
                   kNcclMaxChannels * kNcclMaxThreads *
                       std::max(kNcclSimpleThreadThreshold, kNcclLlThreadThreshold * static_cast<double>(log.ranks)));
      for (const LinkKind c : systems_.back()->link_classes()) exercised_[static_cast<std::size_t>(c)] = true;
    }
    for (std::size_t r = 0; r < kRegimeNames.size(); ++r) {
      defaults_[r] = params_of(nccl_cost(Algorithm::ring, kRegimeDefaults[r]));
    }
  }

  const std::array<bool, 3>& exercised() const { return exercised_; }

  // Unknown k's physical range (calibration_fit.hpp); an unexercised class's unknowns are held where they are.
  std::pair<double, double> bounds(std::size_t regime, std::size_t k, const Params& params) const {
    const double max_fixed_us = kMaxFixedCostFactor * fastest_us_;
    if (k == kLaunch) return {0, max_fixed_us};
    if (k == kFill) return {0, regime == kFillRegime ? max_fill_bytes_ : 0};
    for (const LinkKind c : kLinkKinds) {
      if (!exercised_[static_cast<std::size_t>(c)] && (k == latency_index(c) || k == inverse_index(c))) {
        return {params[k], params[k]};
      }
      if (k == latency_index(c)) return {0, max_fixed_us};
    }
    return {1.0 / kMaxEfficiency, kMaxInverseEfficiency};
  }
  LogSystem& system(std::size_t log) { return *systems_[log]; }
  std::size_t simulations() const { return simulations_; }

  std::array<Params, 2> fit(int& iterations) {
    std::array<Params, 2> best = start();
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
  void clamp(std::size_t regime, Params& params) const {
    for (std::size_t k = 0; k < kUnknowns; ++k) {
      const auto [lower, upper] = bounds(regime, k, params);
      params[k] = std::clamp(params[k], lower, upper);
    }
  }

  // NCCL's constants, with `bandwidth`'s efficiencies scaled so that each log's largest size (pure bandwidth) is
  // predicted as measured (the geometric mean of the ratios over logs): a start on the top of the curve. From
  // NCCL's constants alone a log whose middle sizes are slow (a plateau below the top, as the A100 2-node log's
  // 64-256 MiB) leads Gauss-Newton to fit the plateau and miss every larger size.
  std::array<Params, 2> start() {
    std::array<Params, 2> params = defaults_;
    for (std::size_t r = 0; r < params.size(); ++r) clamp(r, params[r]);
    Params& bandwidth = params[1];
    double log_ratio = 0;
    int logs = 0;
    for (std::size_t s = 0; s < systems_.size(); ++s) {
      const Point* largest = nullptr;
      for (const Point& p : points_) {
        if (p.system == s && (!largest || p.size > largest->size)) largest = &p;
      }
      if (!largest) continue;
      const double launch = bandwidth[kLaunch];
      const double predicted = systems_[s]->simulate(largest->size, cost_of(bandwidth), options_.algorithm).time.us();
      ++simulations_;
      if (predicted > launch && largest->measured_us > launch) {
        log_ratio += std::log((largest->measured_us - launch) / (predicted - launch));
        ++logs;
      }
    }
    if (logs == 0) return params;
    const double ratio = std::exp(log_ratio / logs);
    for (const LinkKind c : kLinkKinds) {
      if (exercised_[static_cast<std::size_t>(c)]) bandwidth[inverse_index(c)] *= ratio;
    }
    clamp(1, bandwidth);
    return params;
  }

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
  Linear linearize(const Point& point, std::size_t regime, const Params& params, const CollectiveOutcome& base) {
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
    if (regime == kFillRegime) {
      // The fill: only points below it (or below the step) move, so for a point above it the step reaches past
      // the point (to twice its size, within the bound): a secant that lets the fill grow towards points whose
      // times say they are still on the ramp.
      Params moved = params;
      const double size = static_cast<double>(point.size.value);
      double step = std::max(kRelativeStep * params[kFill], kMinFillStepBytes);
      if (size >= params[kFill] && 2 * size <= max_fill_bytes_) step = std::max(step, 2 * size - params[kFill]);
      moved[kFill] += step;
      const double time = system.simulate(point.size, cost_of(moved), base.algorithm).time.us();
      ++simulations_;
      linear.gradient[kFill] = (time - linear.value) / step;
    }
    linear.intercept = linear.value - dot(linear.gradient, params);
    return linear;
  }

  std::vector<std::array<Linear, 2>> linearize_all(const std::array<Params, 2>& params, const Evaluation& at) {
    std::vector<std::array<Linear, 2>> out(points_.size());
    for (std::size_t i = 0; i < points_.size(); ++i) {
      for (std::size_t r = 0; r < params.size(); ++r) out[i][r] = linearize(points_[i], r, params[r], at[i][r]);
    }
    return out;
  }

  // The real objective: the prediction is the fastest regime.
  double objective(const Evaluation& at) const {
    double sum = 0;
    for (std::size_t i = 0; i < points_.size(); ++i) {
      const double predicted = std::min(at[i][0].time, at[i][1].time).us();
      sum += point_loss(points_[i], relative_error(predicted, points_[i].measured_us));
    }
    return sum;
  }

  // The linear model's objective: the prediction is the fastest regime.
  double linear_objective(const std::vector<std::array<Linear, 2>>& linear, const std::array<Params, 2>& params) const {
    double sum = 0;
    for (std::size_t i = 0; i < points_.size(); ++i) {
      const double predicted = std::min(predict(linear[i][0], params[0]), predict(linear[i][1], params[1]));
      sum += point_loss(points_[i], relative_error(predicted, points_[i].measured_us));
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
      for (std::size_t k = 0; k < kUnknowns; ++k) {
        const auto [lower, upper] = bounds(regime, k, params);
        problem.set_bounds(k, lower, upper);
      }
      Params curvature{};  // the rows' own weight along each unknown: the ridge's scale
      for (std::size_t i = 0; i < points_.size(); ++i) {
        const Linear& row = linear[i][regime];
        const double m = points_[i].measured_us;
        const double residual = relative_error(predict(row, params), m);
        if (assignment[i] != regime && residual >= 0) continue;
        std::vector<double> coefficients(kUnknowns);
        for (std::size_t k = 0; k < kUnknowns; ++k) coefficients[k] = row.gradient[k] / m;
        const double weight = point_weight(points_[i], residual);
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

  // One line per iteration on a terminal: the objective, the time so far, and an ETA for the iterations left at
  // most (the fit stops earlier when it converges, so the ETA is an upper bound).
  void report(int iteration, double objective) const {
    if (!options_.progress) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    const double eta = elapsed / iteration * (kMaxIterations - iteration);
    options_.progress(fmt::format(
        "calibrate: iteration {} of at most {}: Huber objective {:.4g} ({} simulations), {:.0f} s elapsed, ETA at "
        "most {:.0f} s",
        iteration, kMaxIterations, objective, simulations_, elapsed, eta));
  }

  const FitOptions& options_;
  std::vector<std::unique_ptr<LogSystem>> systems_;
  std::vector<Point> points_;
  std::array<bool, 3> exercised_{};
  std::array<Params, 2> defaults_{};
  double fastest_us_ = 0;      // the fastest measured collective: the scale of a sane fixed cost
  double max_fill_bytes_ = 0;  // NCCL's largest channel ramp for the logs' rank counts
  std::size_t simulations_ = 0;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

bool near(double value, double bound) {
  return std::abs(value - bound) <= kOnBoundTolerance * std::max(std::abs(bound), 1.0);
}

// The fitted parameters of exercised classes (and the launch and fill) that sit on a bound of their range. The
// fill's lower bound is none: any fill below the smallest size means the same (no ramp).
std::vector<BoundHit> bound_hits(const Fitter& fitter, const std::array<Params, 2>& fitted) {
  std::vector<BoundHit> hits;
  for (std::size_t r = 0; r < fitted.size(); ++r) {
    const Params& p = fitted[r];
    const auto check = [&](std::size_t k, const std::string& name, double value, double lower, double upper) {
      if (near(value, upper))
        hits.push_back({fmt::format("{}.{}", kRegimeNames[r], name), rounded(value), upper, true});
      if (k != kFill && near(value, lower)) {
        hits.push_back({fmt::format("{}.{}", kRegimeNames[r], name), rounded(value), lower, false});
      }
    };
    const auto [launch_lo, launch_hi] = fitter.bounds(r, kLaunch, p);
    check(kLaunch, "launch_us", p[kLaunch], launch_lo, launch_hi);
    if (r == kFillRegime) {
      const auto [fill_lo, fill_hi] = fitter.bounds(r, kFill, p);
      check(kFill, "fill_bytes", p[kFill], fill_lo, fill_hi);
    }
    for (const LinkKind c : kLinkKinds) {
      if (!fitter.exercised()[static_cast<std::size_t>(c)]) continue;
      const std::string name(nccl_class_name(c));
      const auto [lat_lo, lat_hi] = fitter.bounds(r, latency_index(c), p);
      check(latency_index(c), name + ".step_latency_us", p[latency_index(c)], lat_lo, lat_hi);
      const auto [x_lo, x_hi] = fitter.bounds(r, inverse_index(c), p);
      check(inverse_index(c), name + ".efficiency", 1.0 / p[inverse_index(c)], 1.0 / x_hi, 1.0 / x_lo);
    }
  }
  return hits;
}

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
  calibration.on_bound = bound_hits(fitter, fitted);
  calibration.topology = topology_family;
  calibration.placement = options.placement;
  calibration.algorithm = options.algorithm;
  for (std::size_t r = 0; r < fitted.size(); ++r) {
    CalibrationRegime regime;
    regime.name = kRegimeNames[r];
    regime.launch_us = rounded(fitted[r][kLaunch]);
    regime.fill_bytes = std::round(fitted[r][kFill]);
    for (const LinkKind c : kLinkKinds) {
      LinkCalibration& link = regime.links[static_cast<std::size_t>(c)];
      link.step_latency_us = rounded(fitted[r][latency_index(c)]);
      link.efficiency = std::min(rounded(1.0 / fitted[r][inverse_index(c)]), kMaxEfficiency);
      link.fitted = fitter.exercised()[static_cast<std::size_t>(c)];
    }
    calibration.regimes.push_back(regime);
  }
  std::vector<LogSystem*> systems;
  for (std::size_t l = 0; l < logs.size(); ++l) systems.push_back(&fitter.system(l));
  const auto measure_all = [&] {
    const CalibratedModel model = to_model(calibration);
    calibration.measurements.clear();
    for (std::size_t l = 0; l < logs.size(); ++l) {
      calibration.measurements.push_back(
          measure_fit(logs[l], *systems[l], measured_points(logs[l], options.placement), model, options.algorithm));
    }
  };
  measure_all();
  for (CalibrationRegime window : calibration_extras::window_candidates(calibration, systems)) {
    const Calibration without = calibration;
    window.name = fmt::format("window-{}", calibration.regimes.size() - kRegimeNames.size() + 1);
    calibration.regimes.push_back(std::move(window));
    measure_all();
    if (!(calibration_extras::window_loss(calibration) < calibration_extras::window_loss(without))) {
      calibration = without;
    }
  }
  calibration.domain = calibration_extras::record_domain(logs, systems, options.placement);
  if (stats) {
    stats->iterations = iterations;
    stats->simulations = fitter.simulations();
  }
  return calibration;
}

}  // namespace syncsim
