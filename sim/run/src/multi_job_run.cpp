// run_jobs (multi_job_run.hpp): resolve each job, place the jobs, simulate each alone and all together, report.
#include "syncsim/run/multi_job_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/collectives/ring_plan.hpp"
#include "syncsim/core/rng.hpp"
#include "syncsim/core/run_cost.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/training/rank_layout.hpp"

#include "background_traffic.hpp"
#include "co_sim_classes.hpp"
#include "job_placement.hpp"
#include "multi_job_sim.hpp"
#include "recommendation_context.hpp"
#include "resolved_scenario.hpp"

namespace syncsim::run {

namespace {

// A job as the co-simulation runs it, and what the report says of it.
struct PreparedJob {
  CoJob job;
  JobReport report;
  std::map<LinkId, double> bytes_per_iteration;  // its AllReduce's bytes on each link it crosses
};

template <typename T>
InputError job_error(const Located<T>& at, std::size_t job, const std::string& message) {
  const std::string key = at.key.empty() ? fmt::format("jobs[{}]", job) : fmt::format("jobs[{}].{}", job, at.key);
  return InputError(message, at.where.source.empty() ? std::nullopt : std::optional<SourceLocation>(at.where), key);
}

// What a job may not ask yet: anything but synchronous training over ring AllReduce, data parallel or in a tensor x
// context x pipeline layout without expert parallelism or sharding.
void refuse_what_jobs_lack(const Scenario& job, std::size_t index) {
  const ParallelismConfig& p = job.parallelism;
  const TrainingConfig& t = job.training;
  const std::string why = " is not co-simulated with jobs: yet (docs/jobs.md, \"Not modelled yet\")";
  if (p.expert.value > 1) throw job_error(p.expert, index, "expert parallelism" + why);
  if (p.sharding.value != ShardingLevel::none) throw job_error(p.sharding, index, "sharding" + why);
  if (t.strategy.value != StrategyKind::sync) throw job_error(t.strategy, index, "a strategy other than sync" + why);
  if (t.communication.value != Communication::allreduce) {
    throw job_error(t.communication, index, "parameter servers" + why);
  }
  if (t.gradient_compression.value.kind != CompressionKind::none) {
    throw job_error(t.gradient_compression, index, "gradient compression" + why);
  }
  if (t.algorithm.value && *t.algorithm.value != Algorithm::ring) {
    throw job_error(t.algorithm, index, "an AllReduce algorithm other than ring" + why);
  }
  if (recommendation_shape(job)) {
    throw job_error(job.model.name, index, "a recommendation model" + why);
  }
  // A job's iteration is its compute then its AllReduce (JobIteration): no DDP bookkeeping, no slowed backward.
  if (t.framework_overhead) throw job_error(*t.framework_overhead, index, "training.framework_overhead" + why);
  if (t.overlap_slowdown) throw job_error(*t.overlap_slowdown, index, "training.overlap_slowdown" + why);
}

// A job's iteration as the co-simulation runs it: the compute before its AllReduce, the AllReduce's size per rank,
// and its data-parallel groups (rank indices).
struct JobIteration {
  SimTime compute;
  Bytes gradient;
  std::vector<std::vector<std::size_t>> groups;
  std::string shared_traffic;
  std::int64_t samples = 0;  // the global batch
};

// Data parallel: one GPU's iteration, then the whole gradient's AllReduce over all ranks.
JobIteration data_parallel_iteration(const Scenario& job) {
  Workspace workspace;
  const ResolvedScenario context(job, workspace);
  std::vector<std::size_t> all(static_cast<std::size_t>(job.cluster.workers->value));
  for (std::size_t r = 0; r < all.size(); ++r) all[r] = r;
  return {context.single_gpu_iteration(),
          context.bucket_plan().total_bytes(),
          {all},
          "the data-parallel AllReduce of the whole gradient after the compute",
          job.cluster.workers->value * job.model.batch_per_gpu.value * job.model.micro_batches};
}

// A tensor x context x pipeline layout: the single-job engine's iteration less its exposed data-parallel time and
// the compute's slowdown beside it (compute, pipeline bubble and the tensor, context and pipeline traffic, none of it
// on the shared fabric), then each data-parallel group's AllReduce of the stages' mean gradient bytes on the shared
// fabric, after the compute.
JobIteration layout_iteration(const Scenario& job, std::size_t index) {
  TrainingReport engine;
  try {
    engine = run_scenario(job).report;
  } catch (const InputError& e) {
    if (e.key().starts_with("jobs[")) throw;
    throw InputError(e.message(), e.where(), fmt::format("jobs[{}].{}", index, e.key()));
  }
  const double exposed_data =
      (engine.exposed_data_share + engine.overlap_interference_share) * static_cast<double>(engine.iteration_mean.ps());
  JobIteration out;
  out.compute = engine.iteration_mean - SimTime::from_ps(static_cast<std::int64_t>(exposed_data));
  out.samples = engine.global_batch;
  for (const GroupCommunication& g : engine.group_communication) {
    if (g.group == "data") out.gradient = Bytes{static_cast<std::int64_t>(g.bytes_per_gpu)};
  }
  const ParallelismConfig& p = job.parallelism;
  const std::int64_t model_parallel = p.tensor.value * p.context.value * p.pipeline.value;
  const std::int64_t data = job.cluster.workers->value / model_parallel;
  // The groups the single-job engine times the data x context reduction on.
  out.groups = RankLayout({p.tensor.value, p.context.value, data, p.pipeline.value}).gradient_timing_groups();
  out.shared_traffic =
      "the data-parallel AllReduce of each group (the stages' mean gradient); tensor, context and pipeline traffic "
      "is in the single-job engine's time, not on the shared fabric";
  return out;
}

// One group's ring AllReduce of `size` as NCCL's channels on the job's GPUs, and its bytes on each link.
void add_ring_allreduce(PreparedJob& out, const std::vector<std::size_t>& gpus, Bytes size,
                        std::optional<std::uint32_t> given, const Topology& topology, Router& router) {
  const std::size_t ranks = gpus.size();
  std::vector<NodeId> nodes;
  for (const std::size_t g : gpus) nodes.push_back(topology.gpu(g));
  const std::uint32_t channels = given ? *given : default_channels(topology, gpus, Algorithm::ring);
  const auto hosts = nccl_node_groups(topology, gpus);
  for (std::uint32_t c = 0; c < channels; ++c) {
    std::vector<Rank> order = channel_ring_order(hosts, ranks, c, channels);
    if (order.empty()) {  // no host structure: rank order
      for (std::size_t r = 0; r < ranks; ++r) order.push_back(Rank{static_cast<std::uint32_t>(r)});
    }
    const Bytes bytes = channel_bytes(size, c, channels);
    out.job.collectives.push_back(
        {std::make_shared<RingPlan>(CollectiveOp::allreduce, ranks, bytes, RingOptions{order}), nodes});
    // A ring AllReduce sends 2(n-1) chunks of S/n along every edge of the ring.
    const double per_edge =
        2.0 * static_cast<double>(ranks - 1) / static_cast<double>(ranks) * static_cast<double>(bytes.value);
    for (std::size_t i = 0; i < ranks; ++i) {
      const NodeId a = nodes[order[i].value()];
      const NodeId b = nodes[order[(i + 1) % ranks].value()];
      for (const LinkId l : router.route(a, b).links) out.bytes_per_iteration[l] += per_edge;
    }
  }
}

// Each distinct job's iteration, by its scenario without its name: jobs alike but for their names (teams running
// one recipe) have one, so the single-job engine runs once for them (seconds for an 8K-GPU layout). The engine is
// deterministic, so this changes no result.
using KnownIterations = std::map<std::string, JobIteration>;

const JobIteration& job_iteration(const Scenario& job, std::size_t index, KnownIterations& known) {
  Scenario unnamed = job;
  unnamed.name.clear();
  const std::string key = to_yaml(unnamed);
  if (const auto it = known.find(key); it != known.end()) return it->second;
  const ParallelismConfig& p = job.parallelism;
  const bool layout = p.tensor.value > 1 || p.context.value > 1 || p.pipeline.value > 1;
  return known.emplace(key, layout ? layout_iteration(job, index) : data_parallel_iteration(job)).first->second;
}

PreparedJob prepare_job(const JobsScenario& scenario, std::size_t index, const JobPlacement& placement,
                        const Topology& topology, Router& router, KnownIterations& known) {
  const Scenario job = job_scenario(scenario, index);
  refuse_what_jobs_lack(job, index);
  const JobIteration& iteration = job_iteration(job, index, known);
  PreparedJob out;
  out.job.compute = iteration.compute;
  const auto given = job.training.channels;
  for (const std::vector<std::size_t>& group : iteration.groups) {
    if (group.size() < 2 || iteration.gradient.value == 0) continue;
    std::vector<std::size_t> gpus;
    for (const std::size_t rank : group) gpus.push_back(placement.gpus[rank]);
    add_ring_allreduce(out, gpus, iteration.gradient,
                       given ? std::optional<std::uint32_t>(static_cast<std::uint32_t>(given->value)) : std::nullopt,
                       topology, router);
  }
  if (out.job.collectives.empty() && out.job.compute == SimTime::zero()) {
    throw scenario.config.jobs[index].gpus.error(
        "an iteration of this job takes no time: no compute and no gradient to exchange");
  }
  JobReport& r = out.report;
  r.name = job.name;
  r.gpus = static_cast<std::int64_t>(placement.gpus.size());
  r.nodes = placement.nodes;
  for (const std::size_t g : placement.gpus) r.gpu_indices.push_back(static_cast<std::int64_t>(g));
  r.compute = out.job.compute;
  r.gradient_bytes = static_cast<double>(iteration.gradient.value);
  r.channels = static_cast<std::uint32_t>(out.job.collectives.size());
  r.shared_traffic = iteration.shared_traffic;
  r.samples_per_iteration = iteration.samples;
  return out;
}

// A job whose iteration is far shorter than the slowest job's runs that many more iterations in the window: refused
// (at its gpus) before a simulation that would take hours.
constexpr double kMaxIterationsInWindow = 1e6;

void check_window_work(const JobsScenario& scenario, const std::vector<PreparedJob>& jobs, std::int64_t window) {
  SimTime slowest;
  for (const PreparedJob& p : jobs) slowest = std::max(slowest, p.report.alone_iteration_time);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const JobReport& r = jobs[j].report;
    const double iterations = static_cast<double>(window) * slowest.seconds() / r.alone_iteration_time.seconds();
    if (iterations <= kMaxIterationsInWindow) continue;
    throw scenario.config.jobs[j].gpus.error(
        fmt::format("job '{}' would run about {:.3g} iterations in the window (at most {:.0e}): its iteration, {:.3g} "
                    "us alone, is too short beside the slowest job's, {:.3g} us",
                    r.name, iterations, kMaxIterationsInWindow, r.alone_iteration_time.us(), slowest.us()));
  }
}

// The links each job shares with another job or with background traffic, the busiest first.
void report_shared_links(std::vector<PreparedJob>& jobs, const std::set<LinkId>& background, const Topology& topology) {
  std::map<LinkId, std::vector<std::size_t>> users;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    for (const auto& [link, bytes] : jobs[j].bytes_per_iteration) users[link].push_back(j);
  }
  // Job k's mean rate on the link over its iterations, as a share of the link.
  const auto share = [&](std::size_t k, LinkId link) {
    return jobs[k].bytes_per_iteration.at(link) /
           (topology.link(link).bandwidth.bytes_per_second * jobs[k].report.iteration_time.seconds());
  };
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    std::vector<std::pair<double, SharedLinkReport>> shared;
    for (const auto& [link, bytes] : jobs[j].bytes_per_iteration) {
      const std::vector<std::size_t>& on = users[link];
      const bool with_background = background.contains(link);
      if (on.size() < 2 && !with_background) continue;
      const Link& l = topology.link(link);
      SharedLinkReport s{topology.node(l.src).name, topology.node(l.dst).name, {}, {}};
      double total = 0;
      for (const std::size_t k : on) {
        const JobReport& other = jobs[k].report;
        if (k != j) s.with.push_back(other.name);
        const double u = share(k, link);
        s.utilization_by_job.emplace_back(other.name, u);
        total += u;
      }
      if (with_background) s.with.push_back("background");
      shared.emplace_back(total, std::move(s));
    }
    JobReport& r = jobs[j].report;
    for (const auto& [link, bytes] : jobs[j].bytes_per_iteration) {
      const bool with_background = background.contains(link);
      r.links.push_back({link.value(), share(j, link), users[link].size() > 1 || with_background, with_background});
    }
    r.shared_link_count = static_cast<std::int64_t>(shared.size());
    std::stable_sort(shared.begin(), shared.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t i = 0; i < shared.size() && i < kSharedLinksReported; ++i) {
      r.shared_links.push_back(std::move(shared[i].second));
    }
  }
}

// The jobs as the co-simulation runs them: with classes, each class of alike ring components once (co_sim_classes.hpp).
std::vector<CoJob> simulated_jobs(const std::vector<CoJob>& jobs, Router& router, const std::set<LinkId>& background,
                                  const JobsRunOptions& options) {
  if (!options.classes) return jobs;
  return co_sim_classes(jobs, router, background, options.copies_min_transfers).jobs;
}

}  // namespace

// The jobs together, with their background: past the flow model's budget because of bursts of a few nanoseconds
// (each on or off period a flow of its own), the error names the shortest burst at its place (found by fuzzing:
// "fewer ranks" was no help there).
template <typename Simulate>
CoSimResult co_simulate_placed(const JobsScenario& scenario, const Simulate& simulate) {
  try {
    return simulate();
  } catch (const RunCostExceeded& e) {
    const BackgroundConfig* shortest = nullptr;
    for (const BackgroundConfig& bg : scenario.config.background) {
      if (bg.burst && (!shortest || bg.burst->value < shortest->burst->value)) shortest = &bg;
    }
    if (e.where() || !shortest) throw;
    throw shortest->burst->error(
        fmt::format("bursts of {:.3g} s: {} (each on or off period is a flow: longer bursts "
                    "stay within it)",
                    shortest->burst->value.seconds(), e.message()));
  }
}

JobsReport run_jobs(const JobsScenario& scenario, const JobsRunOptions& options) {
  const std::shared_ptr<const Topology> topology = scenario_topology(scenario.base);
  Router router(*topology);
  const std::vector<JobPlacement> placements = place_jobs(scenario, *topology);
  std::vector<PreparedJob> jobs;
  KnownIterations known;
  for (std::size_t j = 0; j < placements.size(); ++j) {
    jobs.push_back(prepare_job(scenario, j, placements[j], *topology, router, known));
  }
  std::vector<BackgroundFlow> background =
      background_flows(scenario.config, *topology, router, cluster_nodes(*topology));
  std::set<LinkId> background_links;
  for (const BackgroundFlow& flow : background)
    background_links.insert(flow.route.links.begin(), flow.route.links.end());
  const Topology flow_topology = with_private_links(*topology, background);

  CoSimOptions sim_options{scenario.config.window_iterations.value, options.bulk, scenario.base.seed, options.progress};
  // Alone: the job on its nodes, nothing else on the fabric. Its iterations are all alike (each starts on an idle
  // fabric), so its offset is moot, and with classes one iteration is their mean. Progress counts the together-run;
  // the stop flag holds for both.
  CoSimOptions alone_options = sim_options;
  if (options.classes) alone_options.window_iterations = 1;
  RunProgress stop_only;
  if (options.progress) stop_only.stop = options.progress->stop;
  alone_options.progress = &stop_only;
  Rng rng(scenario.base.seed);
  for (PreparedJob& p : jobs) {
    p.report.alone_iteration_time =
        co_simulate(flow_topology, router, simulated_jobs({p.job}, router, {}, options), {}, alone_options)
            .jobs[0]
            .mean;
    // Not in phase: each job starts at a seeded point within one of its iterations.
    p.job.offset = SimTime::from_ps(
        static_cast<std::int64_t>(rng.uniform() * static_cast<double>(p.report.alone_iteration_time.ps())));
    p.report.offset = p.job.offset;
  }
  check_window_work(scenario, jobs, sim_options.window_iterations);
  std::vector<CoJob> all;
  for (const PreparedJob& p : jobs) all.push_back(p.job);
  const CoSimResult together = co_simulate_placed(scenario, [&] {
    return co_simulate(flow_topology, router, simulated_jobs(all, router, background_links, options), background,
                       sim_options);
  });

  JobsReport report;
  report.scenario = scenario.base.name;
  report.placement = std::string(to_string(scenario.config.placement.policy.value));
  report.window_iterations = sim_options.window_iterations;
  report.window_start = together.window_start;
  report.window_end = together.window_end;
  report.slowest_job = jobs[together.slowest].report.name;
  report.background_flows = static_cast<std::int64_t>(background.size());
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    JobReport& r = jobs[j].report;
    r.iterations = together.jobs[j].iterations;
    r.iteration_time = together.jobs[j].mean;
    r.runs = together.jobs[j].runs;
    r.slowdown = static_cast<double>(r.iteration_time.ps()) / static_cast<double>(r.alone_iteration_time.ps());
    report.workers += r.gpus;
  }
  report_shared_links(jobs, background_links, *topology);
  for (PreparedJob& p : jobs) report.jobs.push_back(std::move(p.report));
  return report;
}

}  // namespace syncsim::run
