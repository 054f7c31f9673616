#include "syncsim/planner/jobs_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include "syncsim/core/input_error.hpp"
#include "syncsim/planner/plan_analysis.hpp"
#include "syncsim/planner/plan_grid.hpp"

namespace syncsim::planner {

namespace {

// The policies --placements takes: scenario_loader's names (jobs_config.hpp), an explicit node list aside.
constexpr std::array<std::string_view, 4> kPlacementPolicies{"packed", "rail", "spread", "random"};

// Two first keys this close rank equal: a slowdown of exactly 1 computed two ways, or a sum in another order.
constexpr double kTieTolerance = 1e-9;

bool ties(double a, double b) {
  return std::abs(a - b) <= kTieTolerance * std::max(std::abs(a), std::abs(b));
}

// The first key, larger is better.
double first_key(const JobsPlanPoint& p, JobsRankBy by) {
  return by == JobsRankBy::worst_slowdown ? -p.worst_slowdown : p.total_samples_per_s;
}

// Among equal worst slowdowns, the lower cost per sample when both are priced (the cheaper fabric that does as well),
// else the higher total throughput; among equal throughputs, the lower worst slowdown. Larger is better.
double second_key(const JobsPlanPoint& p, const JobsPlanPoint& other, JobsRankBy by) {
  if (by == JobsRankBy::throughput) return -p.worst_slowdown;
  if (p.price_per_million_samples && other.price_per_million_samples) return -*p.price_per_million_samples;
  return p.total_samples_per_s;
}

void fill_summary(JobsPlanPoint& p) {
  if (!p.not_run.empty() || p.jobs.empty()) return;
  double sum = 0;
  for (const JobsPlanJob& j : p.jobs) {
    if (j.slowdown > p.worst_slowdown) {
      p.worst_slowdown = j.slowdown;
      p.worst_job = j.name;
    }
    sum += j.slowdown;
    p.total_samples_per_s += j.samples_per_s;
  }
  p.mean_slowdown = sum / static_cast<double>(p.jobs.size());
  if (p.price_per_hour)
    p.price_per_million_samples = price_per_million_samples(*p.price_per_hour, p.total_samples_per_s);
}

std::string recommendation(const JobsPlan& plan, const std::string& currency) {
  if (plan.points.empty() || !plan.points.front().not_run.empty()) {
    return plan.points.empty()
               ? "Recommendation: none: no point to plan"
               : fmt::format("Recommendation: none: no point runs every job ({} / {}: {})", plan.points.front().network,
                             plan.points.front().placement, plan.points.front().not_run);
  }
  const JobsPlanPoint& p = plan.points.front();
  const std::string cost =
      p.price_per_hour ? fmt::format(" at {}/hour ({} per million samples)", money_text(*p.price_per_hour, currency),
                                     money_text(*p.price_per_million_samples, currency))
                       : std::string();
  const std::size_t equal = static_cast<std::size_t>(
      std::count_if(plan.points.begin(), plan.points.end(), [](const JobsPlanPoint& q) { return q.rank == 1; }));
  const std::string why =
      plan.rank_by == JobsRankBy::throughput
          ? "the highest total throughput (ties: the lower worst-job slowdown)"
          : fmt::format("the lowest worst-job slowdown (ties: {})",
                        p.price_per_hour ? "the lower cost per sample" : "the higher total throughput");
  return fmt::format(
      "Recommendation: {} with placement {} — worst job {} at {:.3f}x its time alone (mean {:.3f}x), {:.1f} samples/s "
      "in all on {} GPUs{}; {}{}.",
      p.network, p.placement, p.worst_job, p.worst_slowdown, p.mean_slowdown, p.total_samples_per_s, p.fabric_gpus,
      cost, why, equal > 1 ? fmt::format("; {} points rank equal first", equal) : std::string());
}

}  // namespace

std::string_view to_string(JobsRankBy rank_by) {
  return rank_by == JobsRankBy::worst_slowdown ? "worst-slowdown" : "throughput";
}

JobsRankBy parse_jobs_rank_by(std::string_view text) {
  if (text == "worst-slowdown") return JobsRankBy::worst_slowdown;
  if (text == "throughput") return JobsRankBy::throughput;
  throw InputError(fmt::format("expected worst-slowdown or throughput, got '{}'", text), SourceLocation{"--rank-by"});
}

std::vector<std::string> parse_placements(std::string_view text) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const std::string& item : split_list(text, ',')) {
    if (item.empty()) {
      throw InputError(fmt::format("expected placement policies separated by commas, got '{}'", text),
                       SourceLocation{"--placements"});
    }
    if (std::find(kPlacementPolicies.begin(), kPlacementPolicies.end(), item) == kPlacementPolicies.end()) {
      throw InputError(fmt::format("unknown placement '{}': expected {}", item, fmt::join(kPlacementPolicies, ", ")),
                       SourceLocation{"--placements"});
    }
    if (!seen.insert(item).second) {
      throw InputError(fmt::format("placement '{}' is given twice", item), SourceLocation{"--placements"});
    }
    out.push_back(item);
  }
  return out;
}

std::vector<JobsPlanJob> plan_jobs_of(const JobsReport& report) {
  // The numbers report.json prints (jobs_json's rounding), so that a point reads as `syncsim run` of it.
  const nlohmann::ordered_json json = jobs_json(report);
  std::vector<JobsPlanJob> out;
  for (const auto& j : json.at("jobs")) {
    out.push_back({j.at("name").get<std::string>(), j.at("gpus").get<std::int64_t>(),
                   j.at("iteration_time_us").get<double>(), j.at("alone_iteration_time_us").get<double>(),
                   j.at("slowdown").get<double>(), j.at("samples_per_s").get<double>()});
  }
  return out;
}

JobsPlan rank_jobs_plan(std::vector<JobsPlanPoint> points, JobsRankBy rank_by, const std::string& currency) {
  for (JobsPlanPoint& p : points) fill_summary(p);
  // Points that ran first, by the first key, then the second, then grid order (stable).
  std::stable_sort(points.begin(), points.end(), [&](const JobsPlanPoint& a, const JobsPlanPoint& b) {
    const bool ran_a = a.not_run.empty();
    const bool ran_b = b.not_run.empty();
    if (ran_a != ran_b) return ran_a;
    if (!ran_a) return false;
    const double ka = first_key(a, rank_by);
    const double kb = first_key(b, rank_by);
    if (!ties(ka, kb)) return ka > kb;
    return second_key(a, b, rank_by) > second_key(b, a, rank_by);
  });
  for (std::size_t i = 0; i < points.size() && points[i].not_run.empty(); ++i) {
    const bool same = i > 0 && ties(first_key(points[i], rank_by), first_key(points[i - 1], rank_by));
    points[i].rank = same ? points[i - 1].rank : static_cast<std::int64_t>(i + 1);
  }
  JobsPlan plan{std::move(points), rank_by};
  plan.recommendation = recommendation(plan, currency);
  return plan;
}

}  // namespace syncsim::planner
