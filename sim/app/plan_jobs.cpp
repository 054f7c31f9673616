// `syncsim plan` on a scenario with `jobs:` (plan_jobs.hpp): every (network, placement) point runs all jobs together
// as `syncsim run` of the scenario with that topology and placement would (the same overrides, the same run_jobs),
// so a point's row is that run's report.
#include "plan_jobs.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>

#include "commands.hpp"
#include "plan_files.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"
#include "syncsim/core/output_file.hpp"
#include "syncsim/planner/jobs_plan.hpp"
#include "syncsim/planner/jobs_plan_report.hpp"
#include "syncsim/planner/plan_grid.hpp"
#include "syncsim/planner/price_table.hpp"
#include "syncsim/planner/progress_bar.hpp"
#include "syncsim/planner/sweep.hpp"
#include "syncsim/planner/sweep_runner.hpp"
#include "syncsim/run/multi_job_run.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim::app {

namespace {

// The scenario's own placement, by the name the report gives it.
std::string own_placement(const JobsScenario& s) {
  const PlacementPolicy policy = s.config.placement.policy.value;
  return policy == PlacementPolicy::explicit_nodes ? "explicit" : std::string(to_string(policy));
}

// What tells two plans' rows apart: the scenario file's bytes and the flags that choose the points and their order.
std::string jobs_plan_fingerprint(const JobsPlanOptions& o, const std::vector<planner::PlanNetwork>& networks,
                                  const std::vector<std::string>& placements) {
  std::uint64_t hash = planner::fnv1a(read_input_file(o.scenario, "scenario"));
  // Each item ends in a byte no item holds, so that {"a", "bc"} and {"ab", "c"} differ.
  for (const planner::PlanNetwork& n : networks) {
    hash = planner::fnv1a(fmt::format("{}={}\x1f", n.label, n.spec ? planner::topology_override(*n.spec) : ""),
                          planner::fnv1a("\n--networks ", hash));
  }
  for (const std::string& p : placements) hash = planner::fnv1a(p + '\x1f', planner::fnv1a("\n--placements ", hash));
  return fmt::format("{:016x}", planner::fnv1a(o.rank_by, planner::fnv1a("\n--rank-by ", hash)));
}

// A network that cannot be built at all (a key missing, a bad value) is a mistake in --networks, refused before
// anything runs; one too small for the jobs is a point's answer (plan_jobs' run_one).
void check_networks_build(const Scenario& base, const std::vector<planner::PlanNetwork>& networks) {
  for (const planner::PlanNetwork& net : networks) {
    if (!net.spec) continue;
    Scenario probe = base;  // the cluster alone: whether the jobs fit is the point's question
    probe.cluster.topology = *net.spec;
    try {
      (void)scenario_topology(probe);
    } catch (const InputError& e) {
      throw InputError(fmt::format("network '{}': {}", net.label, e.message()), SourceLocation{"--networks"}, e.key());
    }
  }
}

void refuse_single_job_flags(const JobsPlanOptions& o) {
  if (o.single_job_flags.empty()) return;
  throw InputError(
      fmt::format("plans a scenario with one job; a scenario with jobs: ({}) is planned over --networks and "
                  "--placements, each job at its own GPUs (docs/planner.md, \"Several jobs\")",
                  o.scenario),
      SourceLocation{o.single_job_flags.front()});
}

}  // namespace

int plan_jobs(const JobsPlanOptions& o, const JobsScenario& scenario) {
  refuse_single_job_flags(o);
  const planner::JobsRankBy rank_by = planner::parse_jobs_rank_by(o.rank_by);
  std::vector<planner::PlanNetwork> networks = planner::parse_networks(o.networks);
  const std::vector<std::string> placements =
      o.placements ? planner::parse_placements(*o.placements) : std::vector<std::string>{own_placement(scenario)};
  const unsigned threads = thread_count(o.threads);
  if (networks.empty()) networks.push_back({"scenario", std::nullopt});
  check_networks_build(scenario.base, networks);
  const std::filesystem::path outdir = plan_dir(o.outdir, scenario.base.name);
  check_output_dir(outdir, "-o", plan_file_names());
  const std::string gpu = planner::scenario_gpu_name(scenario.base);
  std::optional<planner::PriceTable> prices;
  if (!o.prices.empty()) {
    prices = planner::load_price_table(o.prices);
    (void)prices->gpu_price(gpu);  // known up front
    std::vector<std::string> labels;
    for (const planner::PlanNetwork& net : networks) labels.push_back(net.label);
    prices->check_networks(labels);
  }

  // One point per (network, placement), networks outer: the overrides `syncsim run --set` would take.
  std::vector<planner::SweepPoint> points;
  for (const planner::PlanNetwork& net : networks) {
    for (const std::string& placement : placements) {
      planner::SweepPoint p{points.size(), {net.label, placement}, {}};
      if (net.spec) p.overrides.push_back(planner::topology_override(*net.spec));
      if (o.placements) p.overrides.push_back("placement=" + placement);
      points.push_back(std::move(p));
    }
  }
  std::vector<planner::JobsPlanPoint> results(points.size());
  const planner::PointRun run_one = [&](const planner::SweepPoint& point, run::Workspace&) {
    planner::JobsPlanPoint& r = results[point.index];
    r.network = point.labels[0];
    r.placement = point.labels[1];
    // A job that does not fit this fabric or placement (or a fabric that cannot be built) is this point's answer,
    // named in its row: the other points still run.
    try {
      const std::optional<JobsScenario> s = load_jobs_scenario(o.scenario, point.overrides);
      r.fabric_gpus = static_cast<std::int64_t>(scenario_topology(s->base)->gpu_count());
      if (prices) r.price_per_hour = prices->cluster_price_per_hour(gpu, r.network, static_cast<double>(r.fabric_gpus));
      r.jobs = planner::plan_jobs_of(run::run_jobs(*s));
    } catch (const InputError& e) {
      r.not_run = e.key().empty() ? e.message() : fmt::format("{}: {}", e.key(), e.message());
    }
    return TrainingReport{};
  };
  planner::ProgressBar progress(isatty(STDERR_FILENO) == 1 ? &std::cerr : nullptr, points.size());
  planner::ProgressLines lines(isatty(STDERR_FILENO) == 1 ? nullptr : &std::cerr, points.size());
  std::vector<std::size_t> all(points.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  planner::run_points_with(points, all, threads, run_one, [&](std::size_t index, const TrainingReport&) {
    progress.advance();
    lines.point_done(fmt::format("{} / {}", points[index].labels[0], points[index].labels[1]));
  });
  progress.finish();

  planner::JobsPlanContext context{scenario.base.name,
                                   {},
                                   0,
                                   prices ? prices->currency : "",
                                   o.prices,
                                   jobs_plan_fingerprint(o, networks, placements)};
  for (const JobConfig& job : scenario.config.jobs) {
    context.job_names.push_back(job.name.value);
    context.job_gpus += job.gpus.value;
  }
  const planner::JobsPlan plan =
      planner::rank_jobs_plan(std::move(results), rank_by, prices ? prices->currency : std::string());
  const std::vector<std::string> written =
      write_plan(outdir, planner::jobs_plan_csv(plan, context), {{"slowdown", planner::jobs_slowdown_chart(plan)}});
  std::cout << planner::jobs_plan_text(plan, context);
  std::cout << "wrote " << fmt::format("{}", fmt::join(written, ", ")) << "\n";
  std::cout << plan.recommendation << "\n";
  return 0;
}

}  // namespace syncsim::app
