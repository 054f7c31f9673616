// run_parameter_server: strategies sync, async and ssp over parameter servers, and hybrid (AllReduce inside
// groups, servers across them), on the event-driven engine of ps_engine.hpp.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <string>

#include "client_work.hpp"
#include "engines.hpp"
#include "fault_plan.hpp"
#include "link_report.hpp"
#include "ps_engine.hpp"
#include "server_placement.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/training/bucket_plan.hpp"
#include "syncsim/training/synchronous_run.hpp"

namespace syncsim::run {

namespace {

constexpr const char* kNotYet = "not simulated yet with parameter servers";

void check_supported(const Scenario& s) {
  const bool barrier_free =
      s.training.strategy.value == StrategyKind::async || s.training.strategy.value == StrategyKind::ssp;
  for (const FaultConfig& fault : s.faults) {
    if (!barrier_free || fault.kind != FaultKind::worker_down) {
      throw InputError(fmt::format("{} faults under strategy '{}' are {} (async and ssp with worker_down are)",
                                   to_string(fault.kind), to_string(s.training.strategy.value), kNotYet),
                       fault.where, fault.key);
    }
  }
  if (!s.degraded_links.empty()) {
    throw InputError(fmt::format("degraded links are {}", kNotYet), s.degraded_links[0].where, s.degraded_links[0].key);
  }
}

// Hybrid: workers per group; a node's GPUs unless training.group_size says otherwise.
std::int64_t group_size(ResolvedScenario& context) {
  const TrainingConfig& t = context.scenario().training;
  const std::int64_t workers = context.workers();
  std::int64_t size = workers;
  if (t.group_size) {
    size = t.group_size->value;
  } else {
    const auto hosts = host_groups(context.topology(), static_cast<std::size_t>(workers));
    if (!hosts.empty()) size = static_cast<std::int64_t>(hosts.front().size());
  }
  if (size < 1 || workers % size != 0) {
    const std::string message = fmt::format("groups of {} do not divide the {} workers", size, workers);
    if (t.group_size) throw t.group_size->error(message);
    throw t.strategy.error(message + " (set training.group_size)");
  }
  return size;
}

std::function<SimTime(double)> apply_cost(const ResolvedScenario& context) {
  const ParameterServerConfig& ps = context.scenario().training.parameter_servers;
  if (ps.apply_time) return [t = *ps.apply_time](double) { return t; };
  if (ps.apply_rate) {
    return [rate = *ps.apply_rate](double bytes) { return SimTime::from_seconds(bytes / rate.bytes_per_second); };
  }
  // A server like the workers' GPU running the scenario's optimizer over the shard's parameters.
  const double element = static_cast<double>(element_bytes(context.precision()));
  const Optimizer optimizer = context.scenario().model.optimizer.value;
  return [&context, element, optimizer](double bytes) {
    return context.compute().optimizer_step(std::llround(bytes / element), optimizer);
  };
}

// Update k at server 0 lands on version k, so it is k - read_version versions stale.
StalenessReport staleness_report(const std::vector<AppliedUpdate>& applied) {
  std::vector<std::int64_t> staleness;
  for (std::size_t k = 0; k < applied.size(); ++k) {
    staleness.push_back(static_cast<std::int64_t>(k) - applied[k].read_version);
  }
  StalenessReport out;
  out.updates = static_cast<std::int64_t>(staleness.size());
  if (staleness.empty()) return out;
  out.max = *std::max_element(staleness.begin(), staleness.end());
  out.mean = static_cast<double>(std::accumulate(staleness.begin(), staleness.end(), std::int64_t{0})) /
             static_cast<double>(staleness.size());
  out.histogram.assign(static_cast<std::size_t>(out.max) + 1, 0);
  for (const std::int64_t s : staleness) ++out.histogram[static_cast<std::size_t>(s)];
  return out;
}

// Sync: one update per round, at its end, over every worker. Async, ssp and hybrid: server 0's updates in the
// order it applied them, each computed on the version the client read (a hybrid client is a whole group).
convergence::UpdateSchedule update_schedule(const PsSetup& setup, const PsResult& result, std::int64_t workers,
                                            std::int64_t group) {
  convergence::UpdateSchedule schedule;
  schedule.workers = workers;
  schedule.group_size = group;
  if (setup.mode == PsMode::sync) {
    schedule.kind = convergence::ScheduleKind::synchronous;
    std::vector<std::int64_t> everyone(static_cast<std::size_t>(workers));
    std::iota(everyone.begin(), everyone.end(), 0);
    schedule.member_sets.push_back(std::move(everyone));
    SimTime end;
    for (std::size_t i = 0; i < result.iteration_times.size(); ++i) {
      end += result.iteration_times[i];
      schedule.updates.push_back({.at = end, .source = 0, .read_version = static_cast<std::int64_t>(i)});
    }
    return schedule;
  }
  schedule.kind = convergence::ScheduleKind::asynchronous;
  for (const AppliedUpdate& u : result.applied) {
    schedule.updates.push_back(
        {.at = u.at, .source = static_cast<std::int64_t>(u.client), .read_version = u.read_version});
  }
  return schedule;
}

}  // namespace

RunOutput run_parameter_server(ResolvedScenario& context, convergence::UpdateSchedule* schedule) {
  const Scenario& s = context.scenario();
  check_supported(s);
  const TrainingConfig& t = s.training;
  const std::int64_t workers = context.workers();
  const bool hybrid = t.strategy.value == StrategyKind::hybrid;
  const std::int64_t group = hybrid ? group_size(context) : 1;
  const std::size_t clients = static_cast<std::size_t>(workers / group);

  const PlacedServers placed = at_value(t.parameter_servers.count, [&] {
    return place_servers(context.topology(), t.parameter_servers,
                         hybrid ? static_cast<std::int64_t>(clients) : workers);
  });
  Router router(placed.topology);
  const LayerTimes layers = context.layer_times();
  const BucketPlan buckets = make_buckets(context.model(), t.bucket_size, context.precision());
  const StragglerModel stragglers = context.stragglers();
  const double model_bytes = static_cast<double>(buckets.total_bytes().value);
  const std::function<SimTime(Bytes)> group_allreduce = [&](Bytes size) {
    return context.allreduce(size, static_cast<std::size_t>(group)).time;
  };

  PsSetup setup;
  setup.mode = t.strategy.value == StrategyKind::sync ? PsMode::sync : PsMode::async;
  if (t.strategy.value == StrategyKind::ssp) setup.staleness_bound = t.staleness_bound->value;
  for (std::size_t c = 0; c < clients; ++c) {
    setup.clients.push_back(placed.topology.gpu(c * static_cast<std::size_t>(group)));
    setup.client_names.push_back(hybrid ? fmt::format("group {}", c) : fmt::format("worker {}", c));
  }
  setup.servers = placed.servers;
  // Buckets exist to overlap communication with backward: without overlap (and for a hybrid group, whose
  // gradient is reduced inside the group first) the whole gradient goes as one message per server.
  const bool one_message = hybrid || !t.overlap;
  if (one_message) {
    setup.bucket_bytes = {model_bytes};
  } else {
    for (const GradientBucket& b : buckets.buckets) setup.bucket_bytes.push_back(static_cast<double>(b.bytes.value));
  }
  setup.model_bytes = model_bytes;
  setup.work = [&](std::size_t c, std::int64_t iteration) {
    if (hybrid) {
      return group_work(layers, buckets, s.model.micro_batches, t.overlap, stragglers,
                        static_cast<std::int64_t>(c) * group, group, iteration, group_allreduce);
    }
    ClientWork work = single_worker_work(worker_compute(layers, buckets, s.model.micro_batches, t.overlap,
                                                        stragglers.factor(static_cast<std::int64_t>(c), iteration)));
    if (one_message) work.bucket_ready = {work.compute_end};
    return work;
  };
  setup.apply_time = apply_cost(context);
  if (hybrid && group > 1) {
    CollectiveSpec broadcast = context.collective_spec(CollectiveOp::broadcast, static_cast<std::size_t>(group));
    broadcast.size = Bytes{static_cast<std::int64_t>(model_bytes)};
    setup.after_pull = at_value(t.algorithm, [&] { return simulate_collective(context.router(), broadcast).time; });
  }
  setup.iterations = t.iterations;
  for (const FaultConfig& fault : s.faults) {
    const std::int64_t rank = fault.rank->value;
    if (rank >= workers) {
      throw fault.rank->error(fmt::format("rank {} does not exist among {} workers", rank, workers));
    }
    setup.failures.emplace_back(static_cast<std::size_t>(rank), fault.at);
  }
  trace::TraceBuilder builder;
  builder.set_metadata("scenario", s.name);
  setup.trace = &builder;
  setup.traced_iterations = std::min<std::int64_t>(t.iterations, std::max<std::int64_t>(1, 1024 / clients));
  builder.set_metadata("iterations_traced", fmt::format("the first {} of each worker", setup.traced_iterations));

  for (const NodeId server : placed.servers) {
    for (const LinkId link : placed.topology.out_links(server)) {
      setup.utilization_links.push_back(link);
      setup.utilization_links.push_back(placed.topology.link(link).reverse);
    }
  }
  if (context.reports_progress()) {
    setup.on_progress = [&](std::int64_t done, std::int64_t total) { context.report_progress(done, total); };
  }
  Simulator sim(s.seed);
  FlowModel flows(sim, placed.topology);
  const PsResult result = run_parameter_servers(sim, flows, router, setup);
  std::vector<bool> happened;
  for (const FaultConfig& fault : s.faults) {
    happened.push_back(result.clients[static_cast<std::size_t>(fault.rank->value / group)].failed_at.has_value());
  }
  check_faults_happened(s, happened, result.total);
  if (schedule != nullptr) *schedule = update_schedule(setup, result, workers, group);

  RunOutput out;
  TrainingReport& r = out.report;
  r = context.base_report();
  fill_throughput(r, t.iterations, result.total, SimTime::from_ps(result.total.ps() / t.iterations),
                  nearest_rank_percentile(result.iteration_times, 50),
                  nearest_rank_percentile(result.iteration_times, 99));
  if (setup.mode == PsMode::async) {
    // Async iterations are per worker: their mean, not the run's total over the iteration count.
    SimTime sum;
    for (const SimTime it : result.iteration_times) sum += it;
    r.iteration_mean = result.iteration_times.empty()
                           ? SimTime::zero()
                           : SimTime::from_ps(sum.ps() / static_cast<std::int64_t>(result.iteration_times.size()));
    r.staleness = staleness_report(result.applied);
  }
  for (std::int64_t w = 0; w < workers; ++w) {
    const ClientStats& c = result.clients[static_cast<std::size_t>(w / group)];
    const SimTime idle = c.straggler_wait + (c.failed_at ? result.total - *c.failed_at : SimTime::zero());
    const SimTime exposed = std::max(SimTime::zero(), result.total - c.compute - idle);
    r.per_worker.push_back({.compute = c.compute,
                            .optimizer = SimTime::zero(),
                            .exposed_communication = exposed,
                            .straggler_wait = idle,
                            .updates = c.updates});
  }
  compute_shares(r);
  for (std::size_t c = 0; c < result.clients.size(); ++c) {
    const ClientStats& stats = result.clients[c];
    if (!stats.failed_at) continue;
    FaultReport f;
    f.kind = "worker_down";
    f.target = hybrid ? fmt::format("group {}", c) : fmt::format("rank {}", c);
    f.policy = "continue";
    f.at = f.detected = f.resumed = *stats.failed_at;
    f.iterations_lost = stats.lost_work > SimTime::zero() ? 1 : 0;
    f.lost_work = stats.lost_work;
    r.lost_work += stats.lost_work;
    r.faults.push_back(f);
  }
  std::sort(r.faults.begin(), r.faults.end(), [](const FaultReport& a, const FaultReport& b) { return a.at < b.at; });
  for (std::size_t i = 0; i < r.faults.size(); ++i) {
    r.faults[i].workers_after = workers - static_cast<std::int64_t>(i + 1) * group;
  }
  for (const GradientBucket& bucket : buckets.buckets) {
    BucketReport b;
    b.bytes = bucket.bytes;
    b.algorithm = "parameter_server";
    if (hybrid && group > 1) {
      const CollectiveOutcome& o = context.allreduce(bucket.bytes, static_cast<std::size_t>(group));
      b.allreduce_time = o.time;
      b.algorithm = std::string(to_string(o.algorithm));
      if (o.protocol) b.protocol = std::string(to_string(*o.protocol));
      b.channels = o.channels;
    }
    r.buckets.push_back(std::move(b));
  }
  r.busiest_links = busiest_links(placed.topology, flows, result.total);
  out.trace = std::move(builder).build();
  return out;
}

}  // namespace syncsim::run
