#include "syncsim/run/run_scenario.hpp"

#include <fmt/format.h>

#include <string>

#include "syncsim/core/run_cost.hpp"
#include "syncsim/core/sim_time_overflow.hpp"
#include "syncsim/run/memory_budget.hpp"
#include "syncsim/training/bucket_plan.hpp"

#include "bottleneck.hpp"
#include "convergence_run.hpp"
#include "engines.hpp"
#include "goodput_run.hpp"
#include "recommendation_context.hpp"
#include "recommendation_servers.hpp"

namespace syncsim::run {

namespace {

// A recommendation model's memory: its tables on the GPUs as placed, or on parameter servers.
RecommendationMemory recommendation_memory(const ResolvedScenario& context, const RecommendationShape& shape) {
  if (context.scenario().training.communication.value == Communication::parameter_server) {
    return servers_memory(context, shape);
  }
  return plan_recommendation(context, shape).memory;
}

// The engines that simulate every iteration of every rank step through its layers and its gradient buckets: their
// iterations x workers x (layers + buckets) count against the run-cost budget before they run (run_cost.hpp);
// run_scenario places it at training.iterations.
void check_rank_iterations(const ResolvedScenario& context) {
  const Scenario& s = context.scenario();
  const std::size_t layers = context.model().layers().size();
  const std::size_t buckets = make_buckets(context.model(), s.training.bucket_size, context.precision()).buckets.size();
  const double work = static_cast<double>(s.training.iterations + s.training.warmup_iterations) *
                      static_cast<double>(context.workers()) * static_cast<double>(layers + buckets);
  if (work <= static_cast<double>(kRankStepBudget)) return;
  throw RunCostExceeded(
      fmt::format("{} workers, {} layers and {} buckets each ({:.3g} steps)", context.workers(), layers, buckets, work),
      RunCostExceeded(kRankStepWork, kRankStepBudget, "fewer iterations or workers, or larger buckets"));
}

// The engine for the scenario's strategy and layout (engines.hpp).
RunOutput dispatch_engine(ResolvedScenario& context, convergence::UpdateSchedule* schedule) {
  const Scenario& scenario = context.scenario();
  if (scenario.model.collectives) return run_collectives_replay(context, schedule);
  if (const auto shape = recommendation_shape(scenario)) return run_recommendation(context, *shape, schedule);
  const TrainingConfig& t = scenario.training;
  const ParallelismConfig& p = scenario.parallelism;
  if (p.tensor.value > 1 || p.pipeline.value > 1 || p.context.value > 1 || p.expert.value > 1) {
    // Without a pipeline, FSDP reshards each unit after its forward: per-unit gathers, the sharded engine's.
    if (p.sharding.value == ShardingLevel::full && p.pipeline.value == 1) return run_sharded_layout(context, schedule);
    return run_model_parallel_layout(context, schedule);
  }
  if (p.sharding.value != ShardingLevel::none) {
    check_rank_iterations(context);
    return run_sharded_data(context, schedule);
  }
  if (t.communication.value == Communication::parameter_server || t.strategy.value == StrategyKind::hybrid) {
    return run_parameter_server(context, schedule);
  }
  check_rank_iterations(context);
  return run_sync_allreduce(context, schedule);  // sync and local_sgd over AllReduce
}

// The iteration at each edge of the calibration's error band (resolved_scenario.hpp, BandEdge): the engine again with
// every calibrated collective at the band's low edge, then at its high one. A calibrated collective is never kept in
// the workspace (collective_cache.hpp), so a calibrated run costs three engine runs.
std::optional<TrainingReport::CalibrationBand> calibration_band(const Scenario& scenario, Workspace& workspace,
                                                                const RunProgress* progress) {
  if (scenario.training.latency_model.value != LatencySource::calibrated) return std::nullopt;
  // The band's runs stop when the run is cancelled (the GUI's), without moving its progress back.
  RunProgress cancel_only;
  if (progress != nullptr) cancel_only.stop = progress->stop;
  const auto at = [&](BandEdge edge) {
    ResolvedScenario context(scenario, workspace, progress != nullptr ? &cancel_only : nullptr);
    context.set_band_edge(edge);
    return dispatch_engine(context, nullptr).report;
  };
  const TrainingReport low = at(BandEdge::low);
  const TrainingReport high = at(BandEdge::high);
  return TrainingReport::CalibrationBand{.iteration_low = low.iteration_mean,
                                         .iteration_high = high.iteration_mean,
                                         .samples_per_second_low = high.samples_per_second,
                                         .samples_per_second_high = low.samples_per_second};
}

// The engine's run, and with `reliability:` the goodput of a long job at its iteration time (goodput_run.hpp).
RunOutput run_engine(const Scenario& scenario, Workspace& workspace, convergence::UpdateSchedule* schedule,
                     const RunProgress* progress) {
  ResolvedScenario context(scenario, workspace, progress);
  context.check_run_length();
  RunOutput out = dispatch_engine(context, schedule);
  out.report.calibration_band = calibration_band(scenario, workspace, progress);
  if (scenario.reliability) {
    const GoodputSetup setup = goodput_setup(context, out.report);
    out.report.goodput = assess_at(setup, scenario.reliability->duration_seconds).report;
    out.job_timeline = job_timeline_of(setup, scenario);
  }
  return out;
}

// A clock overflow that no stage placed (ResolvedScenario places the compute and collective times): the run as a whole
// (many iterations of long ones, a degraded link, a fault's recovery) passed the clock. Reported at the scenario.
InputError run_too_long(const Scenario& scenario, const SimTimeOverflow& e) {
  return InputError(fmt::format("{} (simulating {} iterations)", e.message(),
                                scenario.training.iterations + scenario.training.warmup_iterations),
                    SourceLocation{scenario.source, 0, 0});
}

}  // namespace

RunOutput run_scenario(const Scenario& scenario, Workspace& workspace, const RunProgress* progress) {
  check_run_memory(scenario);
  convergence::UpdateSchedule schedule;
  RunOutput out;
  try {
    out = run_engine(scenario, workspace, scenario.convergence ? &schedule : nullptr, progress);
  } catch (const SimTimeOverflow& e) {
    throw run_too_long(scenario, e);
  } catch (const RunCostExceeded& e) {
    // An engine's own flow model (the parameter-server engine's) past its budget: the run as a whole, which the
    // iterations (with the workers and servers) size.
    if (e.where()) throw;  // a collective's, already placed
    throw InputError(fmt::format("{} iterations: {}",
                                 scenario.training.iterations + scenario.training.warmup_iterations, e.message()),
                     SourceLocation{scenario.source, 0, 0}, "training.iterations");
  }
  out.report.causes = ranked_causes(out.report);
  out.report.bottleneck = attribute_bottleneck(out.report);
  if (scenario.convergence) out.report.convergence = run_convergence(scenario, schedule);
  return out;
}

MemoryReport scenario_memory(const Scenario& scenario) {
  check_run_memory(scenario);
  Workspace workspace;
  const ResolvedScenario context(scenario, workspace, nullptr);
  if (const auto shape = recommendation_shape(scenario)) return recommendation_memory(context, *shape).report;
  return context.memory();
}

std::optional<RecommendationMemory> scenario_recommendation_memory(const Scenario& scenario) {
  const auto shape = recommendation_shape(scenario);
  if (!shape) return std::nullopt;
  check_run_memory(scenario);
  Workspace workspace;
  const ResolvedScenario context(scenario, workspace, nullptr);
  return recommendation_memory(context, *shape);
}

RunOutput run_scenario(const Scenario& scenario, const RunProgress* progress) {
  Workspace workspace;
  return run_scenario(scenario, workspace, progress);
}

}  // namespace syncsim::run
