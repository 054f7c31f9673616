// run_parameter_server: strategies sync, async and ssp over parameter servers, and hybrid (AllReduce inside
// groups, servers across them). The scenario is turned into the engine's setup (parameter_server_run.hpp) in named
// passes — who the clients are, where the servers sit, what a client computes, what a server costs — the engine
// runs with the trace recorder as its observer, and its result is turned into the report.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "convergence_run.hpp"
#include "engines.hpp"
#include "fault_plan.hpp"
#include "link_report.hpp"
#include "ps_report.hpp"
#include "ps_trace.hpp"
#include "syncsim/compute/optimizer.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/run_cost.hpp"
#include "syncsim/training/bucket_plan.hpp"
#include "syncsim/training/client_work.hpp"
#include "syncsim/training/parameter_server_run.hpp"
#include "syncsim/training/server_placement.hpp"

namespace syncsim::run {

namespace {

constexpr const char* kNotYet = "not simulated yet with parameter servers";

void check_ps_supported(const Scenario& s) {
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
  refuse_unsimulated_overheads(s, "over parameter servers", false);
  // A recommendation model's keys (recommendation_servers_run.cpp); given, they have a position.
  const ParameterServerConfig& ps = s.training.parameter_servers;
  const std::string_view tables = "places a recommendation model's tables on the servers: the model has none";
  if (!ps.dense.where.source.empty()) throw ps.dense.error(std::string(tables));
  if (!ps.embeddings.where.source.empty()) throw ps.embeddings.error(std::string(tables));
}
// The strategy as the engine knows it. The engine is told only whether the servers hold a barrier (and the
// staleness bound), not the strategy: hybrid is asynchronous training whose clients happen to be groups, which is
// the client model's business (client_work.hpp), and local_sgd never reaches it.
ParameterServerMode server_mode(StrategyKind strategy) {
  return strategy == StrategyKind::sync ? ParameterServerMode::synchronous : ParameterServerMode::asynchronous;
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

ClientLayout client_layout(ResolvedScenario& context) {
  const TrainingConfig& t = context.scenario().training;
  ClientLayout layout;
  layout.workers = context.workers();
  // Hybrid's clients are groups (a node's GPUs by default); sync's are when group_size says so (TensorFlow's
  // distributed_replicated: a machine sums its GPUs' gradients and pushes once).
  layout.grouped = t.strategy.value == StrategyKind::hybrid || (t.strategy.value == StrategyKind::sync && t.group_size);
  layout.group = layout.grouped ? group_size(context) : 1;
  layout.clients = static_cast<std::size_t>(layout.workers / layout.group);
  return layout;
}

PlacedServers place_scenario_servers(ResolvedScenario& context, const ClientLayout& layout) {
  const ParameterServerConfig& ps = context.scenario().training.parameter_servers;
  return at_value(ps.count, [&] {
    return place_servers(context.router(), ps.count.value, ps.placement, ps.nic_bw,
                         static_cast<std::int64_t>(layout.clients), layout.group);
  });
}

// What one worker computes, whichever client it belongs to.
struct ClientModel {
  LayerTimes layers;
  BucketPlan buckets;
  StragglerModel stragglers;
};

// Whether a client pushes its whole gradient at once. Buckets exist to overlap communication with backward:
// without overlap (and for a group, whose gradient is reduced inside the group first) the whole gradient
// goes as one push.
bool one_push(const Scenario& s, const ClientLayout& layout) {
  return layout.grouped || !s.training.overlap;
}

// The model's parameter tensors (one per layer with parameters, tensor_partition.hpp) placed on the servers, and
// the shards each bucket's push is made of.
ShardPlan shard_plan(ResolvedScenario& context, const ClientLayout& layout, const BucketPlan& buckets,
                     std::size_t servers) {
  const std::vector<Layer>& layers = context.model().layers();
  std::vector<std::int64_t> tensor_bytes;
  std::vector<std::size_t> tensor_of(layers.size(), 0);  // per layer with parameters, its tensor
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (layers[i].params == 0) continue;
    tensor_of[i] = tensor_bytes.size();
    tensor_bytes.push_back(gradient_bytes(layers[i], context.precision()).value);
  }
  std::vector<std::vector<std::size_t>> bucket_tensors;  // one push: every bucket's tensors in one
  for (const GradientBucket& bucket : buckets.buckets) {
    if (bucket_tensors.empty() || !one_push(context.scenario(), layout)) bucket_tensors.emplace_back();
    for (const std::size_t layer : bucket.layers) bucket_tensors.back().push_back(tensor_of[layer]);
  }
  return plan_shards(tensor_bytes, bucket_tensors, servers, context.scenario().training.parameter_servers.partition);
}

// What each client computes per iteration: its buckets' ready times, or (one push) its compute's end.
void set_client_work(ParameterServerSetup& setup, ResolvedScenario& context, const ClientLayout& layout,
                     const ClientModel& model) {
  const Scenario& s = context.scenario();
  const bool one_message = one_push(s, layout);
  const std::int64_t group = layout.group;
  std::function<SimTime(Bytes)> group_allreduce = [&context, group](Bytes size) {
    return context.allreduce(size, static_cast<std::size_t>(group)).time;
  };
  setup.work = [model, micro_batches = s.model.micro_batches, overlap = s.training.overlap, grouped = layout.grouped,
                group, one_message, group_allreduce](std::size_t c, std::int64_t iteration) {
    const auto& [layers, buckets, stragglers] = model;
    if (grouped) {
      return group_work(layers, buckets, micro_batches, overlap, stragglers, static_cast<std::int64_t>(c) * group,
                        group, iteration, group_allreduce);
    }
    ClientWork work = single_worker_work(worker_compute(layers, buckets, micro_batches, overlap,
                                                        stragglers.factor(static_cast<std::int64_t>(c), iteration)));
    if (one_message) work.bucket_ready = {work.compute_end};
    return work;
  };
}

// A group's leader broadcasts the pulled model inside its group before the next iteration.
SimTime group_broadcast(ResolvedScenario& context, const ClientLayout& layout, double model_bytes) {
  if (!layout.grouped || layout.group <= 1) return SimTime::zero();
  CollectiveSpec broadcast = context.collective_spec(CollectiveOp::broadcast, static_cast<std::size_t>(layout.group));
  broadcast.size = Bytes{static_cast<std::int64_t>(model_bytes)};
  return at_value(context.scenario().training.algorithm,
                  [&] { return simulate_collective(context.router(), broadcast).time; });
}

std::vector<std::pair<std::size_t, SimTime>> client_failures(const Scenario& s, std::int64_t workers) {
  std::vector<std::pair<std::size_t, SimTime>> failures;
  for (const FaultConfig& fault : s.faults) {
    const std::int64_t rank = fault.rank->value;
    if (rank >= workers) {
      throw fault.rank->error(fmt::format("rank {} does not exist among {} workers", rank, workers));
    }
    failures.emplace_back(static_cast<std::size_t>(rank), fault.at);
  }
  return failures;
}

ParameterServerSetup engine_setup(ResolvedScenario& context, const ClientLayout& layout, const PlacedServers& placed,
                                  Router& network, const ClientModel& model) {
  const Scenario& s = context.scenario();
  const TrainingConfig& t = s.training;
  ParameterServerSetup setup;
  setup.network = &network;
  setup.seed = s.seed;
  setup.mode = server_mode(t.strategy.value);
  if (t.strategy.value == StrategyKind::ssp) setup.staleness_bound = t.staleness_bound->value;
  for (std::size_t c = 0; c < layout.clients; ++c) {
    setup.clients.push_back(placed.topology.gpu(c * static_cast<std::size_t>(layout.group)));
  }
  setup.servers = placed.servers;
  setup.shards = shard_plan(context, layout, model.buckets, placed.servers.size());
  setup.per_message = t.parameter_servers.per_message;
  set_client_work(setup, context, layout, model);
  setup.apply_time = server_apply_cost(context);
  setup.after_pull = group_broadcast(context, layout, static_cast<double>(model.buckets.total_bytes().value));
  setup.iterations = t.iterations;
  setup.failures = client_failures(s, layout.workers);
  if (context.reports_progress()) {
    setup.on_progress = [&context](std::int64_t done, std::int64_t total) { context.report_progress(done, total); };
  }
  return setup;
}

// The engine simulates every message (run_cost.hpp): per client and iteration at most a push and a pull of each
// shard (async pulls one message per server holding a shard, fewer). Counted before the run, so that a run of
// hours ends at once, at the same point on any machine; run_scenario places it at training.iterations.
void check_message_budget(const ParameterServerSetup& setup) {
  std::uint64_t shards = 0;
  for (const std::vector<ServerShard>& bucket : setup.shards.buckets) {
    for (const ServerShard& shard : bucket) shards += shard.messages > 0 ? 1 : 0;
  }
  const double messages = 2.0 * static_cast<double>(shards) * static_cast<double>(setup.clients.size()) *
                          static_cast<double>(setup.iterations);
  if (messages <= static_cast<double>(kServerMessageBudget)) return;
  throw RunCostExceeded(fmt::format("{} clients, each pushing and pulling {} shards an iteration ({:.3g} messages)",
                                    setup.clients.size(), shards, messages),
                        RunCostExceeded(kServerMessageWork, kServerMessageBudget,
                                        "fewer iterations, clients or servers, or larger buckets"));
}

// Tracks per client and server, and a utilization counter on each server's links, both directions.
ParameterServerTraceLayout trace_layout(const Scenario& s, const ClientLayout& layout, const PlacedServers& placed) {
  ParameterServerTraceLayout trace;
  trace.scenario_name = s.name;
  trace.traced_iterations =
      std::min<std::int64_t>(s.training.iterations, std::max<std::int64_t>(1, 1024 / layout.clients));
  for (std::size_t c = 0; c < layout.clients; ++c) {
    trace.client_names.push_back(layout.grouped ? fmt::format("group {}", c) : fmt::format("worker {}", c));
  }
  trace.servers = placed.servers.size();
  trace.topology = &placed.topology;
  for (const NodeId server : placed.servers) {
    for (const LinkId link : placed.topology.out_links(server)) {
      trace.utilization_links.push_back(link);
      trace.utilization_links.push_back(placed.topology.link(link).reverse);
    }
  }
  return trace;
}

void check_failures_happened(const Scenario& s, const ParameterServerResult& result, std::int64_t group) {
  std::vector<bool> happened;
  for (const FaultConfig& fault : s.faults) {
    happened.push_back(result.clients[static_cast<std::size_t>(fault.rank->value / group)].failed_at.has_value());
  }
  check_faults_happened(s, happened, result.total);
}

}  // namespace

// Sync: one update per round, at its end, over every worker. Async, ssp and hybrid: server 0's updates in the
// order it applied them, each computed on the version the client read (a hybrid client is a whole group).
convergence::UpdateSchedule parameter_server_schedule(const ParameterServerSetup& setup,
                                                      const ParameterServerResult& result, const ClientLayout& layout) {
  if (setup.mode == ParameterServerMode::synchronous) {
    convergence::UpdateSchedule schedule = synchronous_schedule(layout.workers, result.iteration_times);
    schedule.group_size = layout.group;
    return schedule;
  }
  convergence::UpdateSchedule schedule;
  schedule.workers = layout.workers;
  schedule.group_size = layout.group;
  schedule.kind = convergence::ScheduleKind::asynchronous;
  for (const AppliedUpdate& u : result.applied) {
    schedule.updates.push_back(
        {.at = u.at, .source = static_cast<std::int64_t>(u.client), .read_version = u.read_version});
  }
  return schedule;
}

std::function<SimTime(double)> server_apply_cost(const ResolvedScenario& context) {
  const ParameterServerConfig& ps = context.scenario().training.parameter_servers;
  if (ps.apply_time) return [t = *ps.apply_time](double) { return t; };
  if (ps.apply_rate) {
    return [rate = *ps.apply_rate](double bytes) { return SimTime::from_seconds(bytes / rate.bytes_per_second); };
  }
  const double element = static_cast<double>(element_bytes(context.precision()));
  const Optimizer optimizer = context.scenario().model.optimizer.value;
  if (ps.host == ServerHost::cpu) {  // the optimizer's step traffic over the shard's parameters, at host memory speed
    const double memory = ps.host_memory_bw.value_or(kDefaultHostMemoryBandwidth).bytes_per_second;
    const double per_param = static_cast<double>(optimizer_step_bytes(optimizer));
    return [element, per_param, memory](double bytes) {
      return SimTime::from_seconds(std::round(bytes / element) * per_param / memory);
    };
  }
  // A server like the workers' GPU running the scenario's optimizer over the shard's parameters.
  return [&context, element, optimizer](double bytes) {
    return context.compute().optimizer_step(std::llround(bytes / element), optimizer);
  };
}

RunOutput run_parameter_server(ResolvedScenario& context, convergence::UpdateSchedule* schedule) {
  const Scenario& s = context.scenario();
  check_ps_supported(s);
  const ClientLayout layout = client_layout(context);
  PlacedServers placed = place_scenario_servers(context, layout);
  Router network(placed.topology);  // the one router of the network with servers, for the whole run
  const ClientModel model{.layers = context.layer_times(),
                          .buckets = make_buckets(context.model(), s.training.bucket_size, context.precision()),
                          .stragglers = context.stragglers()};
  const ParameterServerSetup setup = engine_setup(context, layout, placed, network, model);
  check_message_budget(setup);

  ParameterServerTraceRecorder recorder(trace_layout(s, layout, placed));
  const ParameterServerResult result = run_parameter_server_engine(setup, &recorder);
  check_failures_happened(s, result, layout.group);
  if (schedule != nullptr) *schedule = parameter_server_schedule(setup, result, layout);

  RunOutput out;
  out.report = parameter_server_report(context, layout, model.buckets, result, setup.mode);
  out.report.busiest_links = busiest_links(placed.topology, result.link_usage, result.total);
  out.trace = std::move(recorder).build();
  return out;
}

}  // namespace syncsim::run
