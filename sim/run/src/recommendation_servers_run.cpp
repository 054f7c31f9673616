// A recommendation model with communication parameter_server: its tables live on the servers (CPU or GPU hosts,
// training.parameter_servers), every worker pulls and pushes only the rows its batch touches, deduplicated
// (sparse_exchange.hpp), through the parameter-server engine (parameter_server_run.hpp) on the flow model, so that
// the servers' NICs, incast, host memory bandwidth and per-message costs show as they do for any model there.
//
//   dense: allreduce (default)   a client is one worker; its work is DDP of the dense part over all the workers
//                                (client_work.hpp's group_work with the whole job as the group, then the dense
//                                optimizer step); the one push is the sparse bucket, ready when that is over
//   dense: servers               the dense buckets are pushed as backward produces them, the sparse bucket last
//                                (the tables' gradients are the last backward produces), all to the same servers
//
// The tables are split row-wise over the servers by parameter_servers.partition (even: every table hashed over
// all k servers, U / k rows each). The sparse bucket's apply is the embedding optimizer's pass over the rows at the
// host's memory bandwidth (cpu) or the GPU's (sparse_exchange.hpp); the dense buckets' the scenario optimizer's.
// A worker holds no table: its memory is the dense part and the rows it pulled with their gradients.
#include <fmt/format.h>

#include <algorithm>

#include "convergence_run.hpp"
#include "engines.hpp"
#include "link_report.hpp"
#include "ps_report.hpp"
#include "recommendation_context.hpp"
#include "recommendation_servers.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/training/client_work.hpp"
#include "syncsim/training/server_placement.hpp"

namespace syncsim::run {

namespace {

void check_servers_supported(const Scenario& s) {
  const TrainingConfig& t = s.training;
  const bool dense_on_servers = t.parameter_servers.dense.value == DenseExchange::servers;
  const StrategyKind strategy = t.strategy.value;
  if (strategy == StrategyKind::hybrid || strategy == StrategyKind::local_sgd) {
    throw t.strategy.error(
        fmt::format("strategy '{}' is not simulated yet with a recommendation model's tables on "
                    "parameter servers (sync is; async and ssp with parameter_servers.dense: "
                    "servers; dense synchronous, tables asynchronous: parameter_servers.embeddings: "
                    "async)",
                    to_string(strategy)));
  }
  if (strategy != StrategyKind::sync && !dense_on_servers) {
    throw t.strategy.error(
        fmt::format("strategy '{}' needs the dense part on the servers too "
                    "(parameter_servers.dense: servers): an AllReduce of the dense part is a "
                    "barrier; for asynchronous tables beside it, parameter_servers.embeddings: async",
                    to_string(strategy)));
  }
  const Located<EmbeddingConsistency>& embeddings = t.parameter_servers.embeddings;
  if (embeddings.value == EmbeddingConsistency::async && (dense_on_servers || strategy != StrategyKind::sync)) {
    throw embeddings.error(
        "asynchronous tables beside a synchronous dense part need strategy sync and the dense "
        "part over AllReduce (parameter_servers.dense: allreduce)");
  }
  if (t.gradient_compression.value.enabled()) {
    throw t.gradient_compression.error("gradient compression is not simulated yet with a recommendation model");
  }
  if (!s.faults.empty()) {
    throw InputError("faults are not simulated yet with a recommendation model", s.faults[0].where, s.faults[0].key);
  }
  if (!s.degraded_links.empty()) {
    throw InputError("degraded links are not simulated yet with a recommendation model", s.degraded_links[0].where,
                     s.degraded_links[0].key);
  }
  if (s.stragglers.jitter.distribution != JitterKind::none || !s.stragglers.slow.empty()) {
    throw InputError("stragglers are not simulated yet with a recommendation model", SourceLocation{s.source, 0, 0},
                     "stragglers");
  }
  refuse_layer_parallelism(s);
}

// The tensors the servers hold and the buckets the workers push: the dense layers' (dense: servers), in DDP's
// buckets, then one bucket of every table's sparse rows.
struct ServerBuckets {
  BucketPlan pushed;  // what the report lists
  std::vector<std::int64_t> tensor_bytes;
  std::vector<std::vector<std::size_t>> bucket_tensors;
  std::size_t sparse_bucket = 0;
};

ServerBuckets server_buckets(const ResolvedScenario& context, const RecommendationServers& sparse,
                             const BucketPlan& dense, bool dense_on_servers) {
  ServerBuckets out;
  const std::vector<Layer>& layers = context.model().layers();
  if (dense_on_servers) {
    std::vector<std::size_t> tensor_of(layers.size(), 0);
    for (std::size_t i = 0; i < layers.size(); ++i) {
      if (layers[i].params == 0 || layers[i].kind == LayerKind::embedding) continue;
      tensor_of[i] = out.tensor_bytes.size();
      out.tensor_bytes.push_back(gradient_bytes(layers[i], context.precision()).value);
    }
    for (const GradientBucket& bucket : dense.buckets) {
      out.bucket_tensors.emplace_back();
      for (const std::size_t layer : bucket.layers) out.bucket_tensors.back().push_back(tensor_of[layer]);
      out.pushed.buckets.push_back(bucket);
    }
  }
  out.sparse_bucket = out.bucket_tensors.size();
  out.bucket_tensors.emplace_back();
  double sparse_bytes = 0;
  for (const SparseExchange& table : sparse.tables) {
    out.bucket_tensors.back().push_back(out.tensor_bytes.size());
    out.tensor_bytes.push_back(std::llround(table.push_bytes));
    sparse_bytes += table.push_bytes;
  }
  out.pushed.buckets.push_back({.bytes = Bytes{std::llround(sparse_bytes)}, .layers = {}, .ready_after_layer = 0});
  return out;
}

// What every worker computes (no stragglers: the same each iteration): the sparse bucket ready at the end of its
// backward, or (dense: allreduce) once the dense AllReduce and the dense step are over.
struct WorkerWork {
  ClientWork work;
  SimTime backward_end;  // the worker's own compute
};

WorkerWork client_work(ResolvedScenario& context, const BucketPlan& dense, bool dense_on_servers, SimTime dense_step) {
  const Scenario& s = context.scenario();
  const LayerTimes layers = context.layer_times();
  if (dense_on_servers) {
    ClientWork work = single_worker_work(worker_compute(layers, dense, s.model.micro_batches, s.training.overlap, 1.0));
    work.bucket_ready.push_back(work.compute_end);
    return {work, work.compute_end};
  }
  const std::int64_t w = context.workers();
  const std::function<SimTime(Bytes)> allreduce = [&context, w](Bytes size) {
    return context.allreduce(size, static_cast<std::size_t>(w)).time;
  };
  ClientWork work =
      group_work(layers, dense, s.model.micro_batches, s.training.overlap, context.stragglers(), 0, w, 0, allreduce);
  const SimTime backward_end = work.compute_end;
  const SimTime ready = (dense.buckets.empty() ? work.compute_end : work.bucket_ready.front()) + dense_step;
  work.compute_end = ready;
  work.bucket_ready = {ready};
  return {work, backward_end};
}

std::function<SimTime(std::size_t, double)> apply_time(const ResolvedScenario& context,
                                                       const RecommendationServers& sparse, std::size_t sparse_bucket) {
  const ParameterServerConfig& ps = context.scenario().training.parameter_servers;
  const std::function<SimTime(double)> dense = server_apply_cost(context);
  if (ps.apply_time || ps.apply_rate) return [dense](std::size_t, double bytes) { return dense(bytes); };
  const double memory = ps.host == ServerHost::cpu
                            ? ps.host_memory_bw.value_or(kDefaultHostMemoryBandwidth).bytes_per_second
                            : context.gpu().memory_bandwidth.bytes_per_second;
  return [dense, sparse_bucket, memory, row = sparse.row_bytes, update = sparse.update_bytes_per_row](
             std::size_t bucket, double bytes) {
    if (bucket != sparse_bucket) return dense(bytes);
    return SimTime::from_seconds(bytes / row * update / memory);
  };
}

// Asynchronous tables beside a synchronous dense part: the rows of batch t + 1 are pulled, and batch t's gradients
// pushed, while batch t + 1 computes, so an iteration is the longer of the worker's own work D (compute, the dense
// AllReduce and step) and the exchange X the engine measured after it (push, the servers' apply, pull: the
// synchronous round R = D + X): max(D, X), in steady state. The engine's link loads stand (the same bytes).
void overlap_exchange(ParameterServerResult& result, SimTime work, std::int64_t iterations) {
  const SimTime round = SimTime::from_ps(result.total.ps() / iterations);
  const SimTime iteration = std::max(work, round - work);
  result.iteration_times.assign(static_cast<std::size_t>(iterations), iteration);
  result.total = iteration * iterations;
  for (ClientStats& c : result.clients) c.end = result.total;
}

}  // namespace

RunOutput run_recommendation_servers(ResolvedScenario& context, const RecommendationShape& shape,
                                     convergence::UpdateSchedule* schedule) {
  const Scenario& s = context.scenario();
  check_servers_supported(s);
  const ParameterServerConfig& ps = s.training.parameter_servers;
  const bool dense_on_servers = ps.dense.value == DenseExchange::servers;
  const RecommendationServers sparse = recommendation_servers(context, shape);
  const BucketPlan dense = make_buckets(dense_part(context.model()), s.training.bucket_size, context.precision());
  const ClientLayout layout{.workers = context.workers(),
                            .grouped = false,
                            .group = 1,
                            .clients = static_cast<std::size_t>(context.workers())};
  PlacedServers placed = at_value(ps.count, [&] {
    return place_servers(context.router(), ps.count.value, ps.placement, ps.nic_bw, layout.workers, 1);
  });
  Router network(placed.topology);
  const ServerBuckets buckets = server_buckets(context, sparse, dense, dense_on_servers);

  ParameterServerSetup setup;
  setup.network = &network;
  setup.seed = s.seed;
  setup.mode = s.training.strategy.value == StrategyKind::sync ? ParameterServerMode::synchronous
                                                               : ParameterServerMode::asynchronous;
  if (s.training.strategy.value == StrategyKind::ssp) setup.staleness_bound = s.training.staleness_bound->value;
  for (std::size_t c = 0; c < layout.clients; ++c) setup.clients.push_back(placed.topology.gpu(c));
  setup.servers = placed.servers;
  setup.shards = plan_shards(buckets.tensor_bytes, buckets.bucket_tensors, placed.servers.size(), ps.partition);
  setup.per_message = ps.per_message;
  const SimTime dense_step = dense_on_servers ? SimTime::zero() : sparse.dense_step;
  const WorkerWork worker = client_work(context, dense, dense_on_servers, dense_step);
  setup.work = [work = worker.work](std::size_t, std::int64_t) { return work; };
  setup.apply_time = server_apply_cost(context);
  setup.bucket_apply_time = apply_time(context, sparse, buckets.sparse_bucket);
  setup.iterations = s.training.iterations;
  if (context.reports_progress()) {
    setup.on_progress = [&context](std::int64_t done, std::int64_t total) { context.report_progress(done, total); };
  }
  const bool async_tables = ps.embeddings.value == EmbeddingConsistency::async;
  ParameterServerResult result = run_parameter_server_engine(setup);
  if (async_tables) overlap_exchange(result, worker.work.bucket_ready.back(), s.training.iterations);

  RunOutput out;
  out.report = parameter_server_report(context, layout, buckets.pushed, result, setup.mode);
  const SimTime ready = worker.work.bucket_ready.back();
  const ExposedExchange exposed{
      .dense = dense_on_servers ? SimTime::zero() : ready - worker.backward_end - dense_step,
      .sparse =
          std::max(SimTime::zero(), out.report.iteration_mean - (dense_on_servers ? worker.backward_end : ready))};
  finish_servers_report(context, sparse, dense, dense_on_servers, exposed, out.report);
  out.report.busiest_links = busiest_links(placed.topology, result.link_usage, result.total);
  if (async_tables) out.report.table_staleness = table_staleness(context, shape);
  if (schedule != nullptr) {
    *schedule = parameter_server_schedule(setup, result, layout);
    schedule->sparse_staleness = async_tables ? 1 : 0;
  }
  return out;
}

}  // namespace syncsim::run
