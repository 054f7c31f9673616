// `syncsim plan SCENARIO.yaml --gpus 8:1024 ...`: which cluster to buy (docs/planner.md). Runs the sweep the
// question needs on threads, ranks the sizes, names the knee and the bottleneck, recommends one, draws charts.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <utility>

#include "calibration_check.hpp"
#include "commands.hpp"
#include "help_format.hpp"
#include "plan_files.hpp"
#include "plan_jobs.hpp"
#include "plan_options.hpp"
#include "plan_progress.hpp"
#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/output_file.hpp"
#include "syncsim/core/units.hpp"
#include "syncsim/planner/embedding_search.hpp"
#include "syncsim/planner/layout_search.hpp"
#include "syncsim/planner/plan_analysis.hpp"
#include "syncsim/planner/plan_batch.hpp"
#include "syncsim/planner/plan_dimensions.hpp"
#include "syncsim/planner/plan_energy.hpp"
#include "syncsim/planner/plan_failures.hpp"
#include "syncsim/planner/plan_grid.hpp"
#include "syncsim/planner/plan_journal.hpp"
#include "syncsim/planner/plan_report.hpp"
#include "syncsim/planner/price_table.hpp"
#include "syncsim/planner/progress_bar.hpp"
#include "syncsim/planner/seed_spread.hpp"
#include "syncsim/planner/sweep_runner.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/global_batch.hpp"
#include "syncsim/scenario/jobs_config.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim::app {

namespace {

// The flags that plan one job: a scenario with jobs: refuses them (plan_jobs.hpp), and --placements and --rank-by
// are refused with one job.
constexpr const char* kSingleJobFlags[] = {"--gpus",
                                           "--gpu-types",
                                           "--target-throughput",
                                           "--time-to-train",
                                           "--samples",
                                           "--tokens",
                                           "--objective",
                                           "--target-loss",
                                           "--min-efficiency",
                                           "--seeds",
                                           "--layouts",
                                           "--global-batch",
                                           "--memory-headroom",
                                           "--max-simulations",
                                           "--risk",
                                           "--no-failures",
                                           "--checkpoint-intervals",
                                           "--spares",
                                           "--strict-calibration"};

// The flags, checked (check_plan_flags): everything but the scenario and the price file, which are read later.
struct PlanFlags {
  planner::PlanGoal goal;
  planner::PlanGrid grid;  // gpu_types empty: the scenario's GPU; networks empty: the scenario's topology
  unsigned threads = 1;
  planner::RiskQuantile risk = planner::RiskQuantile::p50;
  planner::PlanDimensions dimensions;  // --checkpoint-intervals, --spares
};

// Beyond this, a sample count is no training run (large language models train on about 1e13 tokens), and a
// cost or a time computed from it could leave the range where doubles stay finite.
constexpr double kMaxSamples = 1e18;
constexpr double kMaxSequence = 1 << 24;  // tokens per sample, for --tokens' own bound
// A throughput target past this is no cluster's, and printed whole it ran to hundreds of digits.
constexpr double kMaxTargetSamplesPerSecond = 1e18;
constexpr std::int64_t kMaxSimulationsPerPoint = 1 << 16;

double positive_number(const std::string& text, const char* flag, double max) {
  try {
    const double v = parse_number(text);
    if (v > 0 && v <= max) return v;
  } catch (const InputError&) {
  }
  throw InputError(fmt::format("expected a number > 0 and at most {:g}, got '{}'", max, text), SourceLocation{flag});
}

planner::PlanGoal read_goal(const PlanOptions& o) {
  planner::PlanGoal goal;
  if (!(o.min_efficiency > 0 && o.min_efficiency <= 1)) {
    throw InputError(fmt::format("expected a fraction in (0, 1], got {}", o.min_efficiency),
                     SourceLocation{"--min-efficiency"});
  }
  goal.min_efficiency = o.min_efficiency;
  if (!o.samples.empty()) goal.samples = positive_number(o.samples, "--samples", kMaxSamples);
  // Tokens become samples once the scenario's sequence length is known (with_tokens); here only the number.
  if (!o.tokens.empty()) goal.samples = positive_number(o.tokens, "--tokens", kMaxSamples * kMaxSequence);
  if (o.target_throughput) {
    // inf would be a target no cluster meets, NaN one every comparison fails: both are refused, not planned for.
    if (!(*o.target_throughput > 0 && *o.target_throughput <= kMaxTargetSamplesPerSecond)) {
      throw InputError(fmt::format("expected samples/s > 0 and at most {:g}, got {:g}", kMaxTargetSamplesPerSecond,
                                   *o.target_throughput),
                       SourceLocation{"--target-throughput"});
    }
    goal.target_samples_per_s = *o.target_throughput;
  }
  if (!o.time_to_train.empty()) {
    if (!goal.samples) {
      throw InputError("needs --samples M or --tokens T (how much to train on)", SourceLocation{"--time-to-train"});
    }
    double seconds = 0;
    try {
      seconds = parse_seconds(o.time_to_train);
    } catch (const InputError& e) {
      throw InputError(e.message(), SourceLocation{"--time-to-train"});
    }
    if (seconds <= 0) throw InputError("expected a time > 0 such as 36h", SourceLocation{"--time-to-train"});
    goal.deadline_s = seconds;
  }
  if (o.objective == "time-to-accuracy") {
    if (!o.target_loss) {
      throw InputError("--objective time-to-accuracy needs --target-loss X (the held-out loss to reach)",
                       SourceLocation{"--objective"});
    }
    if (!(*o.target_loss > 0 && std::isfinite(*o.target_loss))) {
      throw InputError(fmt::format("expected a loss > 0, got {}", *o.target_loss), SourceLocation{"--target-loss"});
    }
    goal.target_loss = *o.target_loss;
  } else if (o.objective != "throughput") {
    throw InputError(fmt::format("expected throughput or time-to-accuracy, got '{}'", o.objective),
                     SourceLocation{"--objective"});
  } else if (o.target_loss) {
    throw InputError("--target-loss goes with --objective time-to-accuracy", SourceLocation{"--target-loss"});
  }
  return goal;
}

// The goal in samples: --tokens divided by the scenario's sequence length (a transformer's), and a deadline as the
// throughput it needs.
planner::PlanGoal in_samples(planner::PlanGoal goal, const PlanOptions& o, const Scenario& base) {
  if (!o.tokens.empty()) {
    const ModelSpec model = run::scenario_model(base);
    const std::int64_t sequence = model.transformer() ? model.transformer()->sequence : 0;
    if (sequence <= 0) {
      throw InputError(
          fmt::format("model '{}' has no sequence length to count tokens by: give --samples", model.name()),
          SourceLocation{"--tokens"});
    }
    goal.samples = *goal.samples / static_cast<double>(sequence);
    if (*goal.samples > kMaxSamples) {
      throw InputError(
          fmt::format("{} tokens are more than {:g} samples of {} tokens", o.tokens, kMaxSamples, sequence),
          SourceLocation{"--tokens"});
    }
  }
  if (goal.deadline_s) goal.target_samples_per_s = *goal.samples / *goal.deadline_s;
  return goal;
}

// The sweep runner names the flag of a failing point's overrides --vary, as `syncsim sweep` has it; the plan's
// points come from its grid: the GPU type from --gpu-types, the size from --gpus (cluster.workers and the
// topology's node or GPU count), anything else in the topology from --networks.
InputError as_grid_error(const InputError& e, bool networks_given) {
  if (!e.where() || e.where()->source != "--vary") return e;
  const std::string& key = e.key();
  std::string flag = "--gpus";
  if (key.starts_with("cluster.gpu")) {
    flag = "--gpu-types";
  } else if (key.starts_with("cluster.topology") && key != "cluster.topology.nodes" && key != "cluster.topology.n" &&
             networks_given) {
    flag = "--networks";
  }
  return InputError(e.message(), SourceLocation{flag}, key);
}

// The flags a plan can check before reading any file (the cli_args fuzz target runs this alone).
PlanFlags check_plan_flags(const PlanOptions& o) {
  if (o.gpus.empty()) {
    throw InputError(
        "expected GPU counts (8:1024, 16,32): a scenario with one job is planned over sizes; only a "
        "scenario with jobs: goes without --gpus",
        SourceLocation{"--gpus"});
  }
  for (const auto& [given, flag] :
       {std::pair(o.placements.has_value(), "--placements"), std::pair(o.rank_by.has_value(), "--rank-by")}) {
    if (given) {
      throw InputError(
          fmt::format("plans a scenario with jobs: (docs/planner.md, \"Several jobs\"); {} has one job", o.scenario),
          SourceLocation{flag});
    }
  }
  PlanFlags flags;
  flags.goal = read_goal(o);
  flags.grid.gpu_counts = planner::parse_gpu_counts(o.gpus);
  if (!o.gpu_types.empty()) flags.grid.gpu_types = planner::parse_gpu_types(o.gpu_types);
  flags.grid.networks = planner::parse_networks(o.networks);
  flags.threads = thread_count(o.threads);
  planner::check_seeds(o.seeds);
  flags.risk = planner::parse_risk(o.risk);
  if (o.checkpoint_intervals) flags.dimensions.intervals = planner::parse_checkpoint_intervals(*o.checkpoint_intervals);
  if (o.spares) flags.dimensions.spares = planner::parse_spares(*o.spares);
  if (o.layouts != "none" && o.layouts != "auto") {
    throw InputError(fmt::format("expected none or auto, got '{}'", o.layouts), SourceLocation{"--layouts"});
  }
  if (o.global_batch && (*o.global_batch < 1 || *o.global_batch > kMaxGlobalBatch)) {
    throw InputError(fmt::format("expected 1 to {} samples per iteration, got {}", kMaxGlobalBatch, *o.global_batch),
                     SourceLocation{"--global-batch"});
  }
  if (!(o.memory_headroom >= 0 && o.memory_headroom < 1)) {
    throw InputError(fmt::format("expected a share of memory in [0, 1), got {}", o.memory_headroom),
                     SourceLocation{"--memory-headroom"});
  }
  if (o.max_simulations < 1 || o.max_simulations > kMaxSimulationsPerPoint) {
    throw InputError(
        fmt::format("expected 1 to {} simulations per point, got {}", kMaxSimulationsPerPoint, o.max_simulations),
        SourceLocation{"--max-simulations"});
  }
  if (o.seeds == 1 && o.risk != "p50") {
    throw InputError("--risk picks among the runs of --seeds N (N > 1): one seed has no spread",
                     SourceLocation{"--risk"});
  }
  return flags;
}

int plan(const PlanOptions& o) {
  if (const std::optional<JobsScenario> jobs = load_jobs_scenario(o.scenario)) {
    return plan_jobs({o.scenario, o.networks, o.placements, o.rank_by.value_or("worst-slowdown"), o.prices, o.outdir,
                      o.threads, o.single_job_flags},
                     *jobs);
  }
  PlanFlags flags = check_plan_flags(o);
  const Scenario base = load_scenario(o.scenario);
  const planner::PlanGoal goal = in_samples(flags.goal, o, base);
  const planner::PlanDimensions& dims = flags.dimensions;
  planner::check_dimensions(dims, base, o.no_failures, goal.samples.has_value());
  const std::filesystem::path outdir = plan_dir(o.outdir, base.name);
  check_output_dir(outdir, "-o", plan_file_names());  // before the sweep, which may take long
  planner::PlanGrid grid = std::move(flags.grid);
  if (grid.gpu_types.empty()) grid.gpu_types = {planner::scenario_gpu_name(base)};
  if (grid.networks.empty()) grid.networks.push_back({"scenario", std::nullopt});
  std::optional<planner::PriceTable> prices;
  if (!o.prices.empty()) {
    prices = planner::load_price_table(o.prices);
    for (const std::string& gpu : grid.gpu_types) (void)prices->gpu_price(gpu);  // every price known up front
    std::vector<std::string> labels;
    for (const planner::PlanNetwork& net : grid.networks) labels.push_back(net.label);
    prices->check_networks(labels);  // a network priced but not planned is a typo that would cost nothing
  }
  for (const std::string& w : planner::node_warnings(base, grid)) std::cerr << "syncsim: warning: " << w << '\n';
  const planner::PlanBatch batch = planner::plan_batch(base, o.global_batch);
  const bool search = o.layouts == "auto";
  // A recommendation model's search is over its tables' placements (embedding_search.hpp), not its layers' layouts.
  const bool embeddings = search && planner::searches_embeddings(base);
  std::vector<std::string> skipped_points;
  std::vector<planner::SweepPoint> configured = planner::plan_points(base, grid);
  if (!search) configured = planner::hold_batch(base, batch, std::move(configured), skipped_points);
  // Each planned system (GPU type x network) against the calibration's domain, before anything runs.
  print_calibration_lines(points_calibration_lines(o.scenario, configured, o.strict_calibration));
  if (configured.empty()) {
    throw InputError(fmt::format("no GPU count can train the batch: {}", fmt::join(skipped_points, "; ")),
                     SourceLocation{"--gpus"});
  }
  if (goal.target_loss) {
    // Every point trains the convergence proxy (the scenario's own settings, or the defaults) to this target.
    for (planner::SweepPoint& p : configured)
      p.overrides.push_back(fmt::format("convergence.target_loss={}", *goal.target_loss));
  }
  // Each candidate's runs are runs[i x seeds ...], the PlanPoint of its --risk run (seed_spread.hpp): points of
  // their own, or with --layouts auto each point searched (layout_search.hpp) at the scenario's seed, its best
  // layout then run at the further seeds (seed_runs).
  const auto seeds = static_cast<std::size_t>(o.seeds);
  const std::vector<planner::SweepPoint> with_seeds = planner::with_seeds(configured, base.seed, o.seeds);
  const std::vector<planner::SweepPoint>& points = search ? configured : with_seeds;
  std::vector<planner::SearchedPoint> searched(search ? points.size() : 0);
  std::vector<std::vector<TrainingReport>> seed_runs(search ? points.size() : 0);
  planner::LayoutSearchOptions search_options{
      .space = planner::layout_space(base), .memory_headroom = o.memory_headroom, .max_simulations = o.max_simulations};

  // Each run's rows: one, or with --checkpoint-intervals / --spares one per pair (plan_dimensions.hpp).
  std::vector<std::vector<planner::PlanPoint>> runs(with_seeds.size());
  // With reliability: each point's job over the goal's samples (plan_failures.hpp) under each pair, filled where
  // the point ran: the engine runs once per point, the goodput model once per pair.
  const bool failures = planner::counts_failures(base, o.no_failures);
  std::vector<std::vector<run::JobGoodput>> jobs(runs.size());
  const auto point_jobs = [&](const Scenario& scenario, run::Workspace& workspace, const TrainingReport& report,
                              const planner::SweepPoint& point, std::size_t run) {
    if (!failures) return;
    jobs[run] = planner::point_failures(scenario, workspace, report, goal, dims.policies());
    planner::check_point_jobs(dims, jobs[run],
                              fmt::format("{} / {} / {} GPUs", point.labels[0], point.labels[1], point.labels[2]));
  };
  // Per finished point and pair, the run at --risk among its seeds (a point's runs are filled together).
  const auto collect = [&] {
    std::vector<planner::PlanPoint> results;
    for (std::size_t i = 0; i < runs.size() / seeds; ++i) {
      const auto of_point = std::span(runs).subspan(i * seeds, seeds);
      if (std::ranges::any_of(of_point, [](const auto& rows) { return rows.empty(); })) continue;  // running
      for (std::size_t k = 0; k < runs[i * seeds].size(); ++k) {
        std::vector<planner::PlanPoint> of_seeds;
        for (std::size_t s = 0; s < seeds; ++s) of_seeds.push_back(runs[i * seeds + s][k]);
        results.push_back(planner::at_risk(std::move(of_seeds), flags.risk));
      }
    }
    return results;
  };
  // The points an interrupted run of this plan finished (plan_journal.hpp) are not run again.
  planner::PlanJournal journal(outdir / kPlanJournal, plan_fingerprint(o));
  const std::size_t per_point = search ? seeds : 1;
  const auto point_runs = [&](std::size_t index) { return std::span(runs).subspan(index * per_point, per_point); };
  const std::vector<std::size_t> left = resume_points(journal, points, runs, per_point, search ? &searched : nullptr);
  // A test's stand-in for Ctrl-C after N points (tests/planner/plan_resume_check.sh): the interrupt path itself.
  const char* stop_after = std::getenv("SYNCSIM_PLAN_STOP_AFTER");
  std::size_t finished = 0;
  auto last_partial = std::chrono::steady_clock::now();
  // The sweep's bar on a terminal; elsewhere (a log, CI) one line per finished point with the time left.
  planner::ProgressBar progress(isatty(STDERR_FILENO) == 1 ? &std::cerr : nullptr, left.size());
  planner::ProgressLines lines(isatty(STDERR_FILENO) == 1 ? nullptr : &std::cerr, left.size());
  const auto on_point = [&](std::size_t index, const TrainingReport& report) {  // under the runner's lock
    progress.advance();
    const auto add_run = [&](const TrainingReport& r, std::size_t run) {
      planner::PlanPoint p = planner::plan_point(points[index], r);
      if (search) p.layout = searched[index].label;
      p.fits = p.fits && planner::fits_with_headroom(r.memory, o.memory_headroom);
      if (prices) {
        p.price_per_hour = prices->cluster_price_per_hour(p.gpu, p.network, static_cast<double>(r.workers));
      }
      runs[run] = planner::pair_rows(p, jobs[run], dims);
    };
    add_run(report, search ? index * seeds : index);
    for (std::size_t k = 1; search && k < seeds; ++k) add_run(seed_runs[index][k - 1], index * seeds + k);
    const planner::PlanPoint& p = runs[search ? index * seeds : index].front();
    lines.point_done(fmt::format("{} / {} / {} GPUs{}", p.gpu, p.network, p.gpus, search ? ": " + p.layout : ""));
    const auto these = point_runs(index);
    journal.append({.point = index,
                    .labels = points[index].labels,
                    .runs = {these.begin(), these.end()},
                    .layout = search ? std::optional(searched[index].label) : std::nullopt,
                    .search = search ? std::optional(searched[index].stats) : std::nullopt});
    if (stop_after != nullptr && std::to_string(++finished) == stop_after) std::raise(SIGINT);
    if (const auto now = std::chrono::steady_clock::now(); now - last_partial >= kPartialPlanEvery) {
      try {
        write_partial_plan(outdir, planner::plan_csv(analysed(collect(), goal, prices, base), goal));
      } catch (const InputError&) {
        // The rows so far are a courtesy: a folder that cannot take them now fails the plan's own write, with its
        // reason, once every point has run (and the journal keeps them for the next run).
      }
      last_partial = now;
    }
  };
  const planner::PointRun run_one = [&](const planner::SweepPoint& point, run::Workspace& shared) {
    if (!search) {
      const Scenario scenario = load_scenario(o.scenario, point.overrides);
      TrainingReport report = run::run_scenario(scenario, shared).report;
      point_jobs(scenario, shared, report, point, point.index);
      return report;
    }
    // A searched point's collectives and routes are its own topology's (each point is another count, GPU type or
    // network): kept in a workspace of the point's, they go with it instead of piling up over the plan.
    run::Workspace workspace;
    workspace.set_symmetry(shared.symmetry());
    planner::SearchedPoint& s = searched[point.index];
    const std::int64_t held = batch.at(planner::point_gpus(point));
    s = embeddings ? planner::search_embedding_placements(o.scenario, point, held, search_options, workspace)
                   : planner::search_layouts(o.scenario, point, held, search_options, workspace);
    point_jobs(load_scenario(o.scenario, s.overrides), workspace, s.report, point, point.index * seeds);
    // The chosen layout at the further seeds, as with_seeds runs a point's: seed S + k for its k-th run.
    seed_runs[point.index].clear();
    for (std::size_t k = 1; k < seeds; ++k) {
      std::vector<std::string> overrides = s.overrides;
      overrides.push_back(fmt::format("seed={}", base.seed + k));
      const Scenario scenario = load_scenario(o.scenario, overrides);
      seed_runs[point.index].push_back(run::run_scenario(scenario, workspace).report);
      point_jobs(scenario, workspace, seed_runs[point.index].back(), point, point.index * seeds + k);
    }
    return std::exchange(s.report, {});  // the row keeps what the plan needs; a report per point would pile up
  };
  try {
    planner::run_points_with(points, left, flags.threads, run_one, on_point);
  } catch (const InputError& e) {
    throw as_grid_error(e, !o.networks.empty());
  }
  progress.finish();

  planner::PlanContext context{
      base.name, prices ? prices->currency : "", o.prices, goal, o.seeds, o.risk, search, {batch.describe()}};
  if (search) {
    context.notes.push_back(embeddings ? planner::embedding_search_summary(searched)
                                       : planner::search_summary(searched));
  }
  if (failures) context.notes.push_back(planner::failures_note(base, goal, dims.given() ? dims.describe() : ""));
  for (const std::string& skip : skipped_points) context.notes.push_back("skipped: " + skip);
  const planner::Plan result = analysed(collect(), goal, prices, base);
  const std::string csv = planner::plan_csv(result, goal);
  const std::vector<std::string> written = write_plan(outdir, csv, planner::plan_charts(result, context));
  journal.remove();
  std::cout << planner::plan_text(result, context);
  std::cout << "wrote " << fmt::format("{}", fmt::join(written, ", ")) << "\n";
  std::cout << result.recommendation << "\n";  // the answer, last
  return 0;
}

}  // namespace

Action add_plan_command(CLI::App& app, FlagCheck* check) {
  auto o = std::make_shared<PlanOptions>();
  CLI::App* command = app.add_subcommand(
      "plan", "Which GPU count, GPU type and network to buy: ranked table, knee, bottleneck, recommendation, charts");
  set_examples(
      command,
      {"syncsim plan examples/bert-large-two-pods.yaml --gpus 8:32 --prices examples/prices-example.yaml",
       "syncsim plan examples/strategies-64gpu-stragglers.yaml --gpus 32,64 --seeds 8 --risk p10",
       "syncsim plan examples/llama3-70b-layouts.yaml --gpus 256,512 --tokens 15e12 --time-to-train 400d "
       "--prices examples/prices-example.yaml",
       "syncsim plan examples/two-jobs-oversubscribed.yaml --networks 'oversub2=fattree:n=16,radix=8,bw=100Gbps,"
       "oversub=2' --placements packed,spread,rail"});
  command->add_option("scenario", o->scenario, "Scenario file (YAML): the model and training to plan for")->required();
  command->add_option("--gpus", o->gpus,
                      "GPU counts: MIN:MAX[:FACTOR] (8:1024 doubles) or a list 16,32 (required but with jobs:)");
  command->add_option("--gpu-types", o->gpu_types, "GPU catalog names, comma-separated (default: the scenario's)");
  command->add_option("--networks", o->networks,
                      "Topology specs [NAME=]KIND:key=value,...; ';' or the flag repeated separates them "
                      "(default: the scenario's)");
  command->add_option("--prices", o->prices, "Price file (YAML; your own prices, see examples/prices-example.yaml)");
  auto* target = command->add_option("--target-throughput", o->target_throughput, "Required samples/s");
  auto* ttt = command->add_option("--time-to-train", o->time_to_train,
                                  "Required time to train, e.g. 36h or 90d (with --samples or --tokens)");
  target->excludes(ttt);
  auto* samples = command->add_option("--samples", o->samples,
                                      "Samples to train on (time-to-train, GPU-hours, total cost), e.g. 1.2e9");
  auto* tokens = command->add_option("--tokens", o->tokens,
                                     "Tokens to train on, e.g. 15e12 (a transformer's: samples = tokens / sequence)");
  samples->excludes(tokens);
  command->add_option("--objective", o->objective,
                      "throughput (default) or time-to-accuracy: rank by simulated time to --target-loss in the "
                      "convergence proxy (docs/convergence.md)");
  command->add_option("--target-loss", o->target_loss, "Held-out loss to reach, with --objective time-to-accuracy");
  command->add_option("--min-efficiency", o->min_efficiency, "Scaling efficiency threshold for the knee (default 0.8)");
  command->add_option("-o,--outdir", o->outdir, "Output folder (default: ./syncsim-out/<scenario>-plan)");
  command->add_option("-j,--jobs", o->threads, "Threads, 1 to 1024 (default: all cores)");
  command->add_option("--seeds", o->seeds,
                      "Runs per point with seeds S, S+1, ... (stragglers, jitter, failures): p10/p50/p90 throughput");
  command->add_option("--layouts", o->layouts,
                      "none (default: the scenario's parallelism) or auto: search tensor x pipeline x virtual stages x "
                      "context x expert x sharding x micro-batch size x checkpointing per count (docs/planner.md)");
  command->add_option("--global-batch", o->global_batch,
                      "Samples (sequences) per iteration, held at every GPU count (default: model.global_batch, or a "
                      "transformer's own global batch at the scenario's size)");
  command->add_option("--memory-headroom", o->memory_headroom,
                      "Share of each GPU's memory kept free, 0 to <1 (default 0): a point fits below the rest");
  command->add_option("--max-simulations", o->max_simulations,
                      "With --layouts auto: at most this many layouts simulated per point (default 8), in the order "
                      "of their lower bounds");
  command->add_option("--risk", o->risk,
                      "Which run stands for a point with --seeds: p10 (the slow tail), p50 (default), p90");
  command->add_flag("--no-failures", o->no_failures,
                    "With reliability: in the scenario, leave expected failures out of time-to-train and cost (by "
                    "default they count: docs/planner.md, \"Failures\")");
  command->add_option("--checkpoint-intervals", o->checkpoint_intervals,
                      "With reliability: in the scenario, checkpoint intervals to plan for, e.g. optimal,10min,2h "
                      "(optimal: each point's Daly optimum); one row per interval and spare count");
  command->add_option("--spares", o->spares,
                      "With reliability: in the scenario, hot spare node counts to plan for, e.g. 0,16,64");
  command->add_flag(
      "--strict-calibration", o->strict_calibration,
      "A scenario calibration fitted on another system (GPU, link rate, scale) is an error, not a warning");
  command->add_option("--placements", o->placements,
                      "With jobs: in the scenario, placements to plan: packed,rail,spread,random (default: the "
                      "scenario's own)");
  command->add_option("--rank-by", o->rank_by,
                      "With jobs: in the scenario, worst-slowdown (default: the worst job's slowdown against alone, "
                      "lowest first) or throughput (all jobs' samples/s, highest first)");
  if (check) *check = [o] { (void)check_plan_flags(*o); };
  return [o, command]() {
    for (const char* flag : kSingleJobFlags) {
      if (command->count(flag) > 0) o->single_job_flags.emplace_back(flag);
    }
    return plan(*o);
  };
}

}  // namespace syncsim::app
