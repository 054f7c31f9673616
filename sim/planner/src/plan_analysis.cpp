#include "syncsim/planner/plan_analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>

#include "syncsim/planner/plan_failures.hpp"

namespace syncsim::planner {

namespace {

constexpr double kSecondsPerHour = 3600;
constexpr double kMillion = 1e6;

std::string gpus_text(const PlanPoint& p) {
  return fmt::format("{} x {} on {}{}", p.gpus, p.gpu, p.network, pair_text(p));
}

void fill_costs(std::vector<PlanPoint>& points, const PlanGoal& goal) {
  for (PlanPoint& p : points) {
    const double throughput = effective_samples_per_s(p);
    if (p.price_per_hour && throughput > 0) {
      p.price_per_million_samples = price_per_million_samples(*p.price_per_hour, throughput);
    }
    if (goal.samples && throughput > 0) {
      p.time_to_train_s = *goal.samples / throughput;
      // The spares' GPUs are paid too (their price is in price_per_hour, plan_failures.cpp).
      p.gpu_hours = (static_cast<double>(p.gpus) + p.spare_gpus) * *p.time_to_train_s / kSecondsPerHour;
      if (p.price_per_hour) p.cost_to_train = *p.price_per_hour * *p.time_to_train_s / kSecondsPerHour;
      if (p.kept_share) p.badput_hours = (*p.time_to_train_s - *goal.samples / p.samples_per_s) / kSecondsPerHour;
    }
    p.meets_target = !goal.target_samples_per_s || throughput >= *goal.target_samples_per_s;
    if (goal.target_loss) {
      p.meets_target = p.time_to_target_s.has_value();
      if (p.price_per_hour && p.time_to_target_s)
        p.cost_to_target = *p.price_per_hour * *p.time_to_target_s / kSecondsPerHour;
    }
  }
}

// The cost vs time front: no other point is at least as fast and at least as cheap, and better in one. Cost and
// time are per million samples when no sample count is given (the front is the same: both scale with it).
void mark_pareto(std::vector<PlanPoint>& points) {
  for (PlanPoint& p : points) {
    if (!p.price_per_million_samples || effective_samples_per_s(p) <= 0) continue;
    const double time = 1 / effective_samples_per_s(p);
    const double cost = *p.price_per_million_samples;
    p.pareto = std::none_of(points.begin(), points.end(), [&](const PlanPoint& q) {
      if (!q.price_per_million_samples || effective_samples_per_s(q) <= 0) return false;
      const double qt = 1 / effective_samples_per_s(q);
      const double qc = *q.price_per_million_samples;
      return qt <= time && qc <= cost && (qt < time || qc < cost);
    });
  }
}

// The throughput of the last count a configuration's marginal efficiencies start from.
struct Previous {
  double throughput = 0;  // effective (failures counted)
  double raw = 0;         // samples/s alone, without failures
  std::int64_t gpus = 0;
};

std::vector<PlanConfiguration> group(std::vector<PlanPoint>& points, double min_efficiency) {
  std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> by_config;
  for (std::size_t i = 0; i < points.size(); ++i) by_config[{points[i].gpu, points[i].network}].push_back(i);
  std::vector<PlanConfiguration> out;
  for (auto& [key, members] : by_config) {
    // Each count's best pair first, then its alternatives (plan_dimensions.hpp), which are measured against the
    // count before as their best pair is, but are no part of the configuration's line or its knee.
    std::sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
      return std::tie(points[a].gpus, points[a].alternative, a) < std::tie(points[b].gpus, points[b].alternative, b);
    });
    PlanConfiguration c{key.first, key.second, {}, std::nullopt, std::nullopt};
    for (std::size_t i : members) {
      if (!points[i].alternative) c.points.push_back(i);
    }
    double raw_per_gpu = 0;  // the smallest count's samples/s per GPU, without failures
    Previous previous;       // the last count's best pair
    Previous before;         // the count before it: what that count's alternatives are measured against
    bool scaling = true;
    for (std::size_t i : members) {
      PlanPoint& p = points[i];
      if (!p.fits) continue;  // not a size this configuration can train at
      const Previous& from = p.alternative ? before : previous;
      const double added = static_cast<double>(p.gpus - from.gpus) * p.single_gpu_samples_per_s;
      p.marginal_efficiency = added > 0 ? (effective_samples_per_s(p) - from.throughput) / added : 0;
      if (p.kept_share) {
        if (raw_per_gpu == 0) raw_per_gpu = p.samples_per_s / static_cast<double>(p.gpus);
        const double raw_added = static_cast<double>(p.gpus - from.gpus) * raw_per_gpu;
        p.marginal_without_failures = raw_added > 0 ? (p.samples_per_s - from.raw) / raw_added : 0;
      }
      if (p.alternative) continue;
      if (scaling && p.marginal_efficiency >= min_efficiency) {
        c.knee = i;
      } else if (scaling) {
        scaling = false;
        c.first_below = i;
        c.failures_cause = p.marginal_without_failures && *p.marginal_without_failures >= min_efficiency;
      }
      before = previous;
      previous = {effective_samples_per_s(p), p.samples_per_s, p.gpus};
    }
    out.push_back(std::move(c));
  }
  return out;
}

// Each configuration's efficiencies against its smallest count that fits: that count's throughput per GPU stands
// for the one-GPU throughput (a model too big for one GPU has no one-GPU run to compare with).
void rebase_on_smallest(std::vector<PlanPoint>& points) {
  std::map<std::pair<std::string, std::string>, const PlanPoint*> smallest;
  for (const PlanPoint& p : points) {
    if (!p.fits || p.alternative || effective_samples_per_s(p) <= 0) continue;
    const PlanPoint*& s = smallest[{p.gpu, p.network}];
    if (s == nullptr || p.gpus < s->gpus) s = &p;
  }
  std::map<std::pair<std::string, std::string>, double> per_gpu;
  for (const auto& [key, p] : smallest) per_gpu[key] = effective_samples_per_s(*p) / static_cast<double>(p->gpus);
  for (PlanPoint& p : points) {
    const auto found = per_gpu.find({p.gpu, p.network});
    if (found == per_gpu.end()) continue;
    p.single_gpu_samples_per_s = found->second;
    p.scaling_efficiency = effective_samples_per_s(p) / (static_cast<double>(p.gpus) * found->second);
  }
}

// Smaller is better: the order of the table after the recommendation.
double rank_key(const PlanPoint& p, const PlanGoal& goal) {
  if (goal.target_loss) {
    if (!p.time_to_target_s) return std::numeric_limits<double>::max();  // then by best loss (rank_order)
    return p.cost_to_target.value_or(*p.time_to_target_s);
  }
  if (goal.deadline_s && goal.samples) {  // a deadline: what the whole run costs
    return p.cost_to_train.value_or(p.gpu_hours.value_or(std::numeric_limits<double>::max()));
  }
  if (goal.target_samples_per_s) return p.price_per_hour.value_or(static_cast<double>(p.gpus));
  return p.price_per_million_samples.value_or(-effective_samples_per_s(p));
}

// Whether pair `a` of a point is better than its pair `b` (plan_dimensions.hpp): as the ranking judges points,
// what meets a target first, then the lower rank_key (the cost to train by a deadline, the $/hour of a throughput,
// the cost to reach a loss); without a target, or between pairs that both miss it, the faster.
bool better_pair(const PlanPoint& a, const PlanPoint& b, const PlanGoal& goal) {
  const bool targeted = goal.target_loss || goal.target_samples_per_s;
  if (targeted && a.meets_target != b.meets_target) return a.meets_target;
  if (targeted && a.meets_target && rank_key(a, goal) != rank_key(b, goal))
    return rank_key(a, goal) < rank_key(b, goal);
  return effective_samples_per_s(a) > effective_samples_per_s(b);
}

// Marks every pair of a point but its best (better_pair; the first of equals) as an alternative.
void choose_pairs(std::vector<PlanPoint>& points, const PlanGoal& goal) {
  std::map<std::tuple<std::string, std::string, std::int64_t>, std::size_t> best;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto [it, first] = best.try_emplace({points[i].gpu, points[i].network, points[i].gpus}, i);
    if (!first && better_pair(points[i], points[it->second], goal)) it->second = i;
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    points[i].alternative = best.at({points[i].gpu, points[i].network, points[i].gpus}) != i;
  }
}

}  // namespace

std::string money_text(double value, const std::string& currency) {
  return value >= 100 ? fmt::format("{:.0f} {}", value, currency) : fmt::format("{:.2f} {}", value, currency);
}

double price_per_million_samples(double price_per_hour, double samples_per_s) {
  return price_per_hour / (samples_per_s * kSecondsPerHour) * kMillion;
}

std::string configuration_name(const PlanPoint& p) {
  return p.gpu + " / " + p.network;
}

double effective_samples_per_s(const PlanPoint& p) {
  return p.samples_per_s * p.kept_share.value_or(1.0);  // x 1.0 is exact: without failures, samples/s as it is
}

Plan analyze_plan(std::vector<PlanPoint> points, const PlanGoal& goal, const std::string& currency) {
  fill_costs(points, goal);  // before the choice of pairs, which compares their costs; it needs no efficiency
  choose_pairs(points, goal);
  rebase_on_smallest(points);
  mark_pareto(points);
  std::vector<PlanConfiguration> configs = group(points, goal.min_efficiency);

  const auto efficient = [&](const PlanPoint& p) { return p.scaling_efficiency >= goal.min_efficiency; };
  const bool any_fits = std::any_of(points.begin(), points.end(), [](const PlanPoint& p) { return p.fits; });
  std::optional<std::size_t> best;
  std::string why;
  if (goal.target_loss) {
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (!points[i].time_to_target_s || !points[i].fits || points[i].alternative) continue;
      if (!best || rank_key(points[i], goal) < rank_key(points[*best], goal)) best = i;
    }
    why = points.front().price_per_hour
              ? fmt::format("the lowest cost to reach held-out loss {} in the convergence proxy", *goal.target_loss)
              : fmt::format("the first to reach held-out loss {} in the convergence proxy", *goal.target_loss);
  } else if (goal.target_samples_per_s) {
    // A target is met by the cheapest point that meets it, whatever its efficiency: the efficiency is in its cost.
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (!points[i].meets_target || !points[i].fits || points[i].alternative) continue;
      if (!best || rank_key(points[i], goal) < rank_key(points[*best], goal)) best = i;
    }
    why =
        goal.deadline_s
            ? fmt::format("the {} that trains {:.3g} samples within the deadline",
                          points.front().price_per_hour ? "lowest total cost" : "fewest GPU-hours", *goal.samples)
            : fmt::format("the cheapest size that reaches {} samples/s", target_rate_text(*goal.target_samples_per_s));
  } else {
    for (const PlanConfiguration& c : configs) {
      if (!c.knee) continue;
      if (!best || rank_key(points[*c.knee], goal) < rank_key(points[*best], goal)) best = *c.knee;
    }
    why = points.front().price_per_hour
              ? fmt::format(
                    "the best throughput per dollar among the largest sizes that still scale (marginal "
                    "efficiency >= {:.2f})",
                    goal.min_efficiency)
              : fmt::format("the fastest of the largest sizes that still scale (marginal efficiency >= {:.2f})",
                            goal.min_efficiency);
  }

  Plan plan;
  std::vector<std::size_t> order(points.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if ((best == a) != (best == b)) return best == a;
    if (points[a].alternative != points[b].alternative) return points[b].alternative;
    if (points[a].fits != points[b].fits) return points[a].fits;
    // A target (a loss, a throughput, a deadline) ranks by what meets it at what cost: efficiency is no longer the
    // question.
    const bool targeted = goal.target_loss || goal.target_samples_per_s;
    const bool fa = (targeted || efficient(points[a])) && points[a].meets_target;
    const bool fb = (targeted || efficient(points[b])) && points[b].meets_target;
    if (fa != fb) return fa;
    const double ka = rank_key(points[a], goal);
    const double kb = rank_key(points[b], goal);
    if (ka != kb) return ka < kb;
    if (goal.target_loss && points[a].best_loss != points[b].best_loss)
      return points[a].best_loss < points[b].best_loss;
    return std::tie(points[a].gpu, points[a].network, points[a].gpus) <
           std::tie(points[b].gpu, points[b].network, points[b].gpus);
  });
  std::vector<std::size_t> new_index(points.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    new_index[order[i]] = i;
    plan.points.push_back(points[order[i]]);
  }
  for (PlanConfiguration& c : configs) {
    for (std::size_t& i : c.points) i = new_index[i];
    if (c.knee) c.knee = new_index[*c.knee];
    if (c.first_below) c.first_below = new_index[*c.first_below];
  }
  plan.configurations = std::move(configs);

  if (!any_fits) {
    const auto closest =
        std::min_element(plan.points.begin(), plan.points.end(), [](const PlanPoint& a, const PlanPoint& b) {
          return a.memory_bytes - a.memory_capacity_bytes < b.memory_bytes - b.memory_capacity_bytes;
        });
    plan.recommendation = fmt::format(
        "Recommendation: none — no configuration fits in GPU memory; the closest is {} at {:.2f} GiB of {:.2f} GiB "
        "per GPU (shard the optimizer state, or split the model: syncsim memory).",
        gpus_text(*closest), closest->memory_bytes / (1LL << 30), closest->memory_capacity_bytes / (1LL << 30));
  } else if (best && goal.target_loss) {
    plan.recommended = 0;
    const PlanPoint& r = plan.points.front();
    const std::string cost =
        r.cost_to_target ? fmt::format(", {} to get there", money_text(*r.cost_to_target, currency)) : std::string();
    plan.recommendation =
        fmt::format("Recommendation: {} — reaches loss {} after {:.3f} s of training ({:.0f} samples/s{}); {}.",
                    gpus_text(r), *goal.target_loss, *r.time_to_target_s, r.samples_per_s, cost, why);
  } else if (goal.target_loss) {
    const auto closest =
        std::min_element(plan.points.begin(), plan.points.end(),
                         [](const PlanPoint& a, const PlanPoint& b) { return a.best_loss < b.best_loss; });
    plan.recommendation = fmt::format(
        "Recommendation: none of these reaches loss {} within the scenario's iterations; the closest is {} (best "
        "loss {:.4f}) — run more iterations or relax the target.",
        *goal.target_loss, gpus_text(*closest), closest->best_loss);
  } else if (best) {
    plan.recommended = 0;
    const PlanPoint& r = plan.points.front();
    std::string cost;
    if (r.price_per_hour) {
      cost = fmt::format(" at {}/hour ({} per million samples)", money_text(*r.price_per_hour, currency),
                         money_text(*r.price_per_million_samples, currency));
    }
    if (r.time_to_train_s) {
      cost +=
          fmt::format("; trains in {:.1f} h, {:.0f} GPU-hours{}", *r.time_to_train_s / kSecondsPerHour, *r.gpu_hours,
                      r.cost_to_train ? fmt::format(", {} in total", money_text(*r.cost_to_train, currency)) : "");
    }
    cost += failures_clause(r);
    // A knee that failures set: say so, since the larger sizes iterate faster.
    for (const PlanConfiguration& c : plan.configurations) {
      if (c.knee == 0 && c.first_below && c.failures_cause) {
        why += "; " + failures_knee_text(r, plan.points[*c.first_below], true);
      }
    }
    const std::string band = r.samples_per_s_band
                                 ? fmt::format(" ({:.0f} to {:.0f} in the calibration's band)",
                                               r.samples_per_s_band->first, r.samples_per_s_band->second)
                                 : "";
    plan.recommendation = fmt::format("Recommendation: {} — {:.0f} samples/s{}, {:.0f}% scaling efficiency{}; {}.",
                                      gpus_text(r), r.samples_per_s, band, 100 * r.scaling_efficiency, cost, why);
  } else if (goal.target_samples_per_s) {
    const auto fastest = std::max_element(
        plan.points.begin(), plan.points.end(),
        [](const PlanPoint& a, const PlanPoint& b) { return effective_samples_per_s(a) < effective_samples_per_s(b); });
    plan.recommendation = fmt::format(
        "Recommendation: none of these sizes reaches {:.0f} samples/s; the fastest is {} at {:.0f} samples/s ({:.0f}% "
        "efficiency), where {} — fix that before buying more.",
        *goal.target_samples_per_s, gpus_text(*fastest), fastest->samples_per_s, 100 * fastest->scaling_efficiency,
        fastest->bottleneck_summary);
  } else {
    // The most efficient point that fits names what to fix: the cause that stops even it.
    const PlanPoint* most = nullptr;
    for (const PlanPoint& p : plan.points) {
      if (p.fits && (most == nullptr || p.scaling_efficiency > most->scaling_efficiency)) most = &p;
    }
    plan.recommendation = fmt::format(
        "Recommendation: none — even the smallest size scales below {:.2f} efficiency in every configuration; the "
        "best, {} at {:.0f}% efficiency, is bound by its own cause: {} — fix that first.",
        goal.min_efficiency, gpus_text(*most), 100 * most->scaling_efficiency, most->bottleneck_summary);
  }
  return plan;
}

std::string target_rate_text(double samples_per_s) {
  return samples_per_s >= 1 ? fmt::format("{:.0f}", samples_per_s) : fmt::format("{:.3g}", samples_per_s);
}

}  // namespace syncsim::planner
