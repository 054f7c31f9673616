#include "syncsim/planner/plan_failures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace syncsim::planner {

namespace {

constexpr double kSecondsPerDay = 86400;

// The badput causes a failure or a checkpoint costs the job's wall time (goodput_model.hpp's names), in words; the
// stragglers' share is in samples/s already and the idle spares cost money, not time.
const std::map<std::string, std::string>& time_causes() {
  static const std::map<std::string, std::string> words{{"checkpoint_save", "checkpoint saves"},
                                                        {"lost_progress", "lost progress"},
                                                        {"detection", "detection"},
                                                        {"restart", "restarts"},
                                                        {"repair_wait", "repair waits"}};
  return words;
}

std::string interval_text(const Scenario& s) {
  if (s.checkpoint.every_iterations) return fmt::format("every {} iterations", *s.checkpoint.every_iterations);
  if (s.checkpoint.every) return fmt::format("every {:g} s", s.checkpoint.every->seconds());
  return "at each point's Daly optimum for its own MTBF and save time";
}

}  // namespace

bool counts_failures(const Scenario& base, bool no_failures) {
  return base.reliability.has_value() && !no_failures;
}

bool counts_failures(const Plan& plan) {
  return std::any_of(plan.points.begin(), plan.points.end(), [](const PlanPoint& p) { return p.kept_share; });
}

run::JobGoodput point_failures(const Scenario& point, run::Workspace& workspace, const TrainingReport& report,
                               const PlanGoal& goal) {
  return point_failures(point, workspace, report, goal, {run::JobPolicy{}}).front();
}

std::vector<run::JobGoodput> point_failures(const Scenario& point, run::Workspace& workspace,
                                            const TrainingReport& report, const PlanGoal& goal,
                                            const std::vector<run::JobPolicy>& policies) {
  std::optional<double> kept;
  if (goal.samples && report.samples_per_second > 0) kept = *goal.samples / report.samples_per_second;
  return run::job_goodputs(point, workspace, report, kept, policies);
}

void add_failures(PlanPoint& p, const run::JobGoodput& job) {
  const GoodputReport& g = job.goodput;
  p.ettr = g.ettr;
  p.kept_share = job.kept_share;
  p.checkpoint_interval_s = g.checkpoint_interval_seconds;
  p.spare_gpus = job.spare_gpus;
  for (const auto& [cause, share] : g.badput) {
    if (time_causes().contains(cause) && share > p.badput_cause_share) {
      p.badput_cause = cause;
      p.badput_cause_share = share;
    }
  }
  if (p.price_per_hour && p.gpus > 0) {
    *p.price_per_hour *= (static_cast<double>(p.gpus) + p.spare_gpus) / static_cast<double>(p.gpus);
  }
}

std::string failures_note(const Scenario& base, const PlanGoal& goal, const std::string& choices) {
  const ReliabilityConfig& r = *base.reliability;
  const std::string table =
      r.default_table ? "the default table (Llama 3's 419 interruptions)" : "the scenario's rates";
  const std::string spares = r.spares > 0 ? fmt::format(", {} hot spare nodes paid beside each point", r.spares) : "";
  if (!choices.empty()) {
    return fmt::format("{}: each point's ETTR from {}, {} (docs/planner.md, \"Failures\")",
                       goal.samples ? "time to train counts expected failures" : "throughput counts expected failures",
                       table, choices);
  }
  const std::string what = goal.samples ? "time to train counts expected failures"
                                        : fmt::format(
                                              "throughput counts expected failures over the scenario's "
                                              "{:.1f}-day job",
                                              r.duration_seconds / kSecondsPerDay);
  return fmt::format(
      "{}: each point's ETTR from {}, checkpoints {}{} (docs/planner.md, \"Failures\"); "
      "--no-failures leaves them out",
      what, table, interval_text(base), spares);
}

std::string failures_knee_text(const PlanPoint& knee, const PlanPoint& below, bool brief) {
  const bool saves = below.badput_cause == "checkpoint_save";
  if (brief) {
    return fmt::format("past {} GPUs, {} more than the added GPUs give (ETTR {:.1f}% at {} GPUs, {:.1f}% at {})",
                       knee.gpus, saves ? "checkpointing costs" : "failures cost", 100 * knee.ettr.value_or(0),
                       knee.gpus, 100 * below.ettr.value_or(0), below.gpus);
  }
  const auto cause = time_causes().find(below.badput_cause);
  const std::string largest = cause == time_causes().end()
                                  ? std::string()
                                  : fmt::format(" ({} the largest loss, {:.1f}% of the GPU time)", cause->second,
                                                100 * below.badput_cause_share);
  return fmt::format(
      "past {} GPUs, {} more than the added GPUs give: going to {} GPUs samples/s alone would return {:.3f} of "
      "their throughput, but ETTR falls from {:.1f}% to {:.1f}%{}, and they return {:.3f}{}",
      knee.gpus, saves ? "checkpointing costs" : "failures cost", below.gpus,
      below.marginal_without_failures.value_or(0), 100 * knee.ettr.value_or(0), 100 * below.ettr.value_or(0), largest,
      below.marginal_efficiency,
      below.marginal_efficiency < 0 ? fmt::format(": {} GPUs train slower than {}", below.gpus, knee.gpus) : "");
}

std::string span_text(double seconds) {
  if (seconds >= 2 * kSecondsPerDay) return fmt::format("{:.1f} d", seconds / kSecondsPerDay);
  if (seconds >= 3600) return fmt::format("{:.1f} h", seconds / 3600);
  if (seconds >= 60) return fmt::format("{:.1f} min", seconds / 60);
  return fmt::format("{:.1f} s", seconds);
}

std::string pair_label(const PlanPoint& p) {
  return p.spares ? fmt::format("{} / {} spares", p.checkpoint_choice, *p.spares) : std::string();
}

std::string pair_text(const PlanPoint& p) {
  if (!p.spares) return "";
  const std::string every = span_text(p.checkpoint_interval_s.value_or(0));
  const bool named = p.checkpoint_choice == "optimal" || p.checkpoint_choice == "scenario";
  return fmt::format(", checkpointing every {}{} with {} hot spare node{}", every,
                     named ? fmt::format(" ({})", p.checkpoint_choice) : std::string(), *p.spares,
                     *p.spares == 1 ? "" : "s");
}

std::string failures_clause(const PlanPoint& p) {
  if (!p.ettr) return "";
  const std::string added =
      p.badput_hours ? fmt::format(", failures and checkpoints add {:.1f} h", *p.badput_hours) : std::string();
  return fmt::format("; ETTR {:.1f}%{}", 100 * *p.ettr, added);
}

}  // namespace syncsim::planner
