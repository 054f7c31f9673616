#include "syncsim/planner/plan_dimensions.hpp"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/units.hpp"
#include "syncsim/planner/plan_failures.hpp"

namespace syncsim::planner {

namespace {

constexpr const char* kIntervalsFlag = "--checkpoint-intervals";
constexpr const char* kSparesFlag = "--spares";

// The items of a comma-separated flag value; an empty value or item is an error at `flag`.
std::vector<std::string> items(std::string_view text, const char* flag, const char* example) {
  if (text.empty()) throw InputError(fmt::format("empty: expected a list such as {}", example), SourceLocation{flag});
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != ',') continue;
    out.emplace_back(text.substr(start, i - start));
    if (out.back().empty()) {
      throw InputError(fmt::format("empty item in '{}': expected a list such as {}", text, example),
                       SourceLocation{flag});
    }
    start = i + 1;
  }
  return out;
}

// The label of a pair's interval when the flag does not vary it: the scenario's own.
std::string scenario_interval(const run::JobGoodput& job) {
  return job.goodput.checkpoint_interval_seconds == job.goodput.checkpoint_interval_optimal_seconds ? "optimal"
                                                                                                    : "scenario";
}

}  // namespace

std::vector<CheckpointChoice> parse_checkpoint_intervals(std::string_view text) {
  std::vector<CheckpointChoice> out;
  std::set<double> seen;
  bool optimal = false;
  for (std::string& item : items(text, kIntervalsFlag, "optimal,10min,30min,2h")) {
    if (item == "optimal") {
      if (optimal) throw InputError("optimal given twice", SourceLocation{kIntervalsFlag});
      optimal = true;
      out.push_back({std::move(item), std::nullopt});
      continue;
    }
    double seconds = 0;
    try {
      seconds = parse_seconds(item);
    } catch (const InputError& e) {
      throw InputError(fmt::format("{} (or optimal: each point's Daly optimum)", e.message()),
                       SourceLocation{kIntervalsFlag});
    }
    if (!(seconds > 0)) {
      throw InputError(fmt::format("a checkpoint interval must be above zero, got '{}'", item),
                       SourceLocation{kIntervalsFlag});
    }
    if (seconds > kMaxCheckpointInterval) {
      throw InputError(fmt::format("'{}' is longer than a year: no training job checkpoints that seldom", item),
                       SourceLocation{kIntervalsFlag});
    }
    if (!seen.insert(seconds).second) {
      throw InputError(fmt::format("{} given twice ('{}')", span_text(seconds), item), SourceLocation{kIntervalsFlag});
    }
    out.push_back({std::move(item), seconds});
  }
  return out;
}

std::vector<std::int64_t> parse_spares(std::string_view text) {
  std::vector<std::int64_t> out;
  std::set<std::int64_t> seen;
  for (const std::string& item : items(text, kSparesFlag, "0,16,64")) {
    std::int64_t n = 0;
    try {
      n = parse_count(item);
    } catch (const InputError& e) {
      throw InputError(fmt::format("{} (hot spare nodes)", e.message()), SourceLocation{kSparesFlag});
    }
    if (n < 0 || n > kMaxSpareNodes) {
      throw InputError(fmt::format("{} hot spare nodes is out of range (0 to {})", item, kMaxSpareNodes),
                       SourceLocation{kSparesFlag});
    }
    if (!seen.insert(n).second) throw InputError(fmt::format("{} given twice", n), SourceLocation{kSparesFlag});
    out.push_back(n);
  }
  return out;
}

std::vector<run::JobPolicy> PlanDimensions::policies() const {
  std::vector<run::JobPolicy> intervals_of;
  if (intervals.empty()) intervals_of.push_back({});
  for (const CheckpointChoice& c : intervals) {
    run::JobPolicy& policy = intervals_of.emplace_back();
    policy.interval = c.seconds ? run::JobPolicy::Interval::fixed : run::JobPolicy::Interval::optimal;
    policy.interval_seconds = c.seconds.value_or(0);
  }
  // Many pairs per point: each solved to the sampled noise floor, not to 1e-9 (run/goodput_job.hpp).
  for (run::JobPolicy& policy : intervals_of) policy.stop_at_noise = given();
  std::vector<run::JobPolicy> out;
  for (const run::JobPolicy& interval : intervals_of) {
    if (spares.empty()) out.push_back(interval);
    for (const std::int64_t n : spares) {
      out.push_back(interval);
      out.back().spares = n;
    }
  }
  return out;
}

std::string PlanDimensions::describe() const {
  std::vector<std::string> texts;
  for (const CheckpointChoice& c : intervals) texts.push_back(c.text);
  const std::string intervals_text = intervals.empty() ? "the scenario's checkpoint interval"
                                                       : fmt::format("checkpoint intervals {}", fmt::join(texts, ", "));
  const std::string spares_text =
      spares.empty() ? "the scenario's hot spares" : fmt::format("hot spare nodes {}", fmt::join(spares, ", "));
  return fmt::format(
      "{} x {}: each point simulated once and its job assessed at every pair; the best pair stands for the point, "
      "plan.csv has every pair",
      intervals_text, spares_text);
}

void check_dimensions(const PlanDimensions& dims, const Scenario& base, bool no_failures, bool samples_given) {
  if (!dims.given()) return;
  const char* flag = dims.intervals.empty() ? kSparesFlag : kIntervalsFlag;
  const std::string value =
      dims.intervals.empty() ? fmt::format("{}", dims.spares.front()) : dims.intervals.front().text;
  if (!base.reliability) {
    throw InputError(fmt::format("'{}': the scenario has no reliability: section, so the plan counts no failures "
                                 "and has no checkpoints or spares to choose (docs/planner.md, \"Failures\")",
                                 value),
                     SourceLocation{flag});
  }
  if (no_failures) {
    throw InputError(fmt::format("'{}' with --no-failures: the plan counts no failures, so nothing to choose", value),
                     SourceLocation{flag});
  }
  if (samples_given) return;  // each point's job length follows from its throughput: check_point_jobs
  for (const CheckpointChoice& c : dims.intervals) {
    if (c.seconds && *c.seconds > base.reliability->duration_seconds) {
      throw InputError(fmt::format("'{}' is longer than the scenario's {} job (reliability.duration): no checkpoint "
                                   "would be taken",
                                   c.text, span_text(base.reliability->duration_seconds)),
                       SourceLocation{kIntervalsFlag});
    }
  }
}

void check_point_jobs(const PlanDimensions& dims, const std::vector<run::JobGoodput>& jobs, const std::string& where) {
  const std::size_t per_interval = std::max<std::size_t>(1, dims.spares.size());
  for (std::size_t i = 0; i < dims.intervals.size(); ++i) {
    const CheckpointChoice& c = dims.intervals[i];
    if (!c.seconds) continue;
    const double save = jobs.at(i * per_interval).goodput.checkpoint_write_seconds;
    if (*c.seconds < save) {
      throw InputError(fmt::format("'{}' is shorter than one checkpoint save at {} ({}): the next save would start "
                                   "before the last one ends",
                                   c.text, where, span_text(save)),
                       SourceLocation{kIntervalsFlag});
    }
    for (std::size_t k = i * per_interval; k < (i + 1) * per_interval; ++k) {
      const double wall = jobs.at(k).wall_seconds;
      if (std::isfinite(wall) && *c.seconds > wall) {
        throw InputError(fmt::format("'{}' is longer than the whole job at {} ({}): no checkpoint would be taken",
                                     c.text, where, span_text(wall)),
                         SourceLocation{kIntervalsFlag});
      }
    }
  }
}

std::vector<PlanPoint> pair_rows(const PlanPoint& point, const std::vector<run::JobGoodput>& jobs,
                                 const PlanDimensions& dims) {
  if (jobs.empty()) return {point};
  std::vector<PlanPoint> out;
  const std::size_t per_interval = std::max<std::size_t>(1, dims.spares.size());
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    PlanPoint& p = out.emplace_back(point);
    add_failures(p, jobs[k]);
    if (!dims.given()) continue;
    p.spares = jobs[k].goodput.spares;
    p.checkpoint_choice = dims.intervals.empty() ? scenario_interval(jobs[k]) : dims.intervals[k / per_interval].text;
  }
  return out;
}

}  // namespace syncsim::planner
