#pragma once
// The plan counts failures (docs/planner.md, "Failures"). With a `reliability:` section in the scenario (and no
// --no-failures), every point's time to train holds the expected badput: the goodput model (run/goodput_job.hpp)
// runs per point with that point's GPUs, nodes and switches, its checkpoint (the state per rank under its layout)
// and the checkpoint interval for its own MTBF and save time (Daly's optimum, unless the scenario fixes one):
//
//   kept          = samples / samples/s           the training at the point's iteration time, stragglers in it
//   time to train = D, solving D = kept / k(D)    k: the share of the wall time that trains iterations kept
//   ETTR          = productive / D                (goodput_model.hpp)
//   badput hours  = D - kept                      what failures, restarts, checkpoint saves and repairs add
//
// The plan then works with the effective throughput samples/s x k (plan_analysis.hpp): a larger cluster iterates
// faster but fails more often, and past some size its time to train grows. Without a sample count (--samples,
// --tokens), k is taken over the scenario's own reliability.duration. Hot spare nodes are paid beside the job's.
#include <optional>
#include <string>
#include <vector>

#include "syncsim/planner/plan_analysis.hpp"
#include "syncsim/run/goodput_job.hpp"
#include "syncsim/run/workspace.hpp"
#include "syncsim/scenario/scenario.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::planner {

// Whether a plan of `base` counts failures: it has a reliability section and --no-failures was not given.
bool counts_failures(const Scenario& base, bool no_failures);

// Whether a plan's points count failures (any has its share k): its table, plan.csv and charts say so.
bool counts_failures(const Plan& plan);

// One point's job: `point` is the scenario the point ran (its overrides applied), `report` its run; with
// goal.samples the wall time that trains them, else the scenario's duration.
run::JobGoodput point_failures(const Scenario& point, run::Workspace& workspace, const TrainingReport& report,
                               const PlanGoal& goal);
// The same job under each policy (run::job_goodputs: one checkpoint and failure model for all), in their order.
std::vector<run::JobGoodput> point_failures(const Scenario& point, run::Workspace& workspace,
                                            const TrainingReport& report, const PlanGoal& goal,
                                            const std::vector<run::JobPolicy>& policies);

// Into the point, after its price: ETTR, k, the interval, the largest cause; the spares' GPUs priced with the job's.
void add_failures(PlanPoint& point, const run::JobGoodput& job);

// The plan's header line (without "# "): "time to train counts expected failures: ...". `choices`: with
// --checkpoint-intervals or --spares, their words (PlanDimensions::describe) in place of the scenario's interval
// and spares.
std::string failures_note(const Scenario& base, const PlanGoal& goal, const std::string& choices = {});

// "5.9 min", "2.0 h", "40.0 s": a checkpoint interval, a save or a job in words.
std::string span_text(double seconds);

// The knee's words when failures are what stop the configuration (PlanConfiguration::failures_cause): "past 16
// GPUs, failures cost more than the added GPUs give: ...". `knee` and `below` are the knee and the point past it;
// `brief`: the claim and the two ETTRs only (for the recommendation).
std::string failures_knee_text(const PlanPoint& knee, const PlanPoint& below, bool brief = false);

// For the recommendation: "; ETTR 91.2%, failures add 12.0 h" (empty without failures counted).
std::string failures_clause(const PlanPoint& point);

// A row's (interval, spares) pair (plan_dimensions.hpp) as plan.csv's `pair` names it, "optimal / 16 spares", and
// as the recommendation names it, ", checkpointing every 5.9 min (optimal) with 16 hot spare nodes"; both empty
// without the flags.
std::string pair_label(const PlanPoint& point);
std::string pair_text(const PlanPoint& point);

}  // namespace syncsim::planner
