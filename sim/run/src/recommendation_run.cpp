// Strategy sync with a recommendation model: TorchRec's hybrid of model-parallel tables and a data-parallel dense
// part, as the model-parallel engine's one-stage timeline (model_parallel_run.hpp) —
//
//   compute     the busiest GPU's: the dense layers at its batch, and each table's lookups in the share it does
//               (EmbeddingPlacement::lookup_share: a table-wise owner pools the whole job's samples)
//   embedding   inside the passes, on the compute stream as TorchRec's pipeline waits on them: forward the input
//               ids' all-to-all, the pooled embeddings' all-to-all and the row-wise tables' reduce-scatter; backward
//               the gradients' all-to-all and the row-wise all-gather (embedding_sharding.hpp has the bytes); each
//               simulated over all GPUs on the topology
//   data        the dense gradients (and data-parallel tables') in DDP buckets of training.bucket_size, reduced as
//               backward produces them, overlapping it
//   step        the dense optimizer over the dense parameters; the sharded tables' update is fused into backward
// The report carries the embedding all-to-alls as the group "embedding" (their time share under exposed_expert,
// the all-to-all slot) and the memory of the fullest GPU under the placement.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

#include "convergence_run.hpp"
#include "engines.hpp"
#include "recommendation_context.hpp"
#include "recommendation_servers.hpp"
#include "recommendation_tiers.hpp"
#include "syncsim/run/memory_budget.hpp"
#include "syncsim/run/recommendation_probe.hpp"
#include "syncsim/training/embedding_tiers.hpp"
#include "syncsim/training/model_parallel_run.hpp"
#include "syncsim/training/synchronous_run.hpp"

namespace syncsim::run {

namespace {

void check_recommendation_supported(const Scenario& s) {
  refuse_what_identical_ranks_lack(s, "with a recommendation model");
  refuse_unsimulated_overheads(s, "with a recommendation model", false);
  refuse_layer_parallelism(s);
}

struct Passes {
  SimTime forward;
  SimTime backward;
  SimTime host;           // the busiest GPU's host-link fetches (forward); its write-backs take as long (backward)
  double host_bytes = 0;  // those fetches' bytes, per micro-batch
  std::int64_t rank = 0;  // the busiest GPU
  std::vector<ChunkWork::Unit> units;
  std::int64_t dense_params = 0;
  SimTime one_gpu;  // forward and backward of every layer at one GPU's batch: the job on one GPU, if it fit
};

// The busiest GPU's compute and the dense gradients' buckets, the last layers first.
Passes passes(const ResolvedScenario& context, const RecommendationPlan& plan) {
  const std::vector<Layer>& layers = context.model().layers();
  const LayerTimes times = context.layer_times();
  const EmbeddingPlacement& placement = plan.placement;
  std::vector<std::size_t> table_of(layers.size(), placement.tables().size());
  for (std::size_t l = 0, t = 0; l < layers.size(); ++l) {
    if (layers[l].kind == LayerKind::embedding) table_of[l] = t++;
  }
  Passes out;
  const std::int64_t e = element_bytes(context.precision());
  // The host link's bytes per second; 0 when every table is in GPU memory.
  const double link = uses_host_memory(placement) ? host_link(context, placement).bytes_per_second : 0;
  SimTime busiest;
  for (std::int64_t r = 0; r < placement.world(); ++r) {
    SimTime f;
    SimTime b;
    double host_bytes = 0;
    for (std::size_t l = 0; l < layers.size(); ++l) {
      const std::size_t t = table_of[l];
      const double share = t < placement.tables().size() ? placement.lookup_share(t, r) : 1.0;
      f += SimTime::from_seconds(times.forward[l].seconds() * share);
      b += SimTime::from_seconds(times.backward[l].seconds() * share);
      if (link > 0 && t < placement.tables().size()) host_bytes += host_link_bytes(placement, t, r, context.batch(), e);
    }
    const SimTime host = link > 0 ? SimTime::from_seconds(host_bytes / link) : SimTime::zero();
    if (f + b + host + host > busiest) {
      busiest = f + b + host + host;
      out.forward = f;
      out.backward = b;
      out.host = host;
      out.host_bytes = host_bytes;
      out.rank = r;
    }
  }
  for (std::size_t l = 0; l < layers.size(); ++l) out.one_gpu += times.forward[l] + times.backward[l];
  const std::int64_t cap = context.scenario().training.bucket_size.value;
  const std::int64_t g = element_bytes(context.precision());
  SimTime total;
  for (SimTime t : times.backward) total += t;
  SimTime done;
  std::int64_t held = 0;
  for (std::size_t l = layers.size(); l-- > 0;) {
    done += times.backward[l];
    const bool sharded = table_of[l] < placement.tables().size() &&
                         placement.sharding()[table_of[l]].type != EmbeddingShardingType::data_parallel;
    if (sharded) continue;
    out.dense_params += layers[l].params;
    held += layers[l].params * g;
    if (held >= cap) {
      out.units.push_back({Bytes{held}, total > SimTime::zero() ? done.seconds() / total.seconds() : 1.0, false});
      held = 0;
    }
  }
  if (held > 0) out.units.push_back({Bytes{held}, 1.0, false});
  return out;
}

// The dense optimizer's step: the scenario's step over the dense parameters' share (the tables' update is fused).
SimTime dense_step(const ResolvedScenario& context, const Passes& work) {
  const double dense_share =
      static_cast<double>(work.dense_params) / static_cast<double>(std::max<std::int64_t>(1, context.model().params()));
  return SimTime::from_seconds(context.optimizer_step().seconds() * dense_share);
}

struct EmbeddingComm {
  SimTime forward;
  SimTime backward;
  double bytes_per_gpu = 0;  // sent by the busiest GPU per iteration, both directions
  std::string collectives;
};

EmbeddingComm embedding_comm(ResolvedScenario& context, const EmbeddingPlacement& p) {
  const std::int64_t w = p.world();
  EmbeddingComm c;
  if (w < 2) return c;
  std::vector<std::size_t> all(static_cast<std::size_t>(w));
  std::iota(all.begin(), all.end(), std::size_t{0});
  const std::vector<std::vector<std::size_t>> groups{all};
  const std::int64_t b = context.batch();
  const std::int64_t e = element_bytes(context.precision());
  const auto time = [&](CollectiveOp op, Bytes bytes) {
    return bytes.value > 0 ? context.group_collective(op, bytes, groups).time : SimTime::zero();
  };
  const double peers = static_cast<double>(w - 1) / static_cast<double>(w);
  const auto per_gpu = [peers](Bytes buffer) { return static_cast<double>(buffer.value) * peers; };
  const Bytes input = p.input_buffer(b);
  const Bytes pooled = p.alltoall_buffer(b, e);
  const Bytes partial = p.reduce_scatter_buffer(b, e);
  const SimTime input_time = time(CollectiveOp::alltoall, input);
  const SimTime pooled_time = time(CollectiveOp::alltoall, pooled);
  c.forward = input_time + pooled_time + time(CollectiveOp::reduce_scatter, partial);
  c.backward = pooled_time + time(CollectiveOp::all_gather, partial);
  c.bytes_per_gpu = per_gpu(input) + 2 * per_gpu(pooled) + 2 * per_gpu(partial);
  std::vector<std::string> names;
  if (input.value > 0) names.push_back("alltoall of the ids");
  if (pooled.value > 0) names.push_back("alltoall of the pooled embeddings and of their gradients");
  if (partial.value > 0) names.push_back("reduce_scatter of the row-wise partial sums + all_gather of their gradients");
  c.collectives = fmt::format("{}", fmt::join(names, " + "));
  return c;
}

// The report's groups: the dense buckets, the embedding all-to-alls and, with tables in host memory, the host link's
// fetches and write-backs, which sit in the all-to-alls' slot on the compute stream: exposed whole.
std::vector<GroupCommunication> groups(const Passes& work, const EmbeddingComm& comm, const ModelParallelResult& result,
                                       std::int64_t micro_batches, std::int64_t iterations) {
  const SimTime host = std::min(result.exposed_expert, (work.host + work.host) * micro_batches);
  std::vector<GroupCommunication> out{{.group = "data",
                                       .collectives = "allreduce per bucket",
                                       .bytes_per_gpu = result.stages.front().data_bytes_per_iteration,
                                       .exposed = result.exposed_data},
                                      {.group = "embedding",
                                       .collectives = comm.collectives,
                                       .bytes_per_gpu = comm.bytes_per_gpu,
                                       .exposed = result.exposed_expert - host}};
  if (work.host == SimTime::zero()) return out;
  const double bytes = 2 * work.host_bytes * static_cast<double>(micro_batches);
  const SimTime mean = SimTime::from_ps(result.total.ps() / iterations);
  out.push_back({.group = "host-memory",
                 .collectives = "cache misses fetched over the host link + the updated rows written back",
                 .bytes_per_gpu = bytes,
                 .exposed = host,
                 .busiest_link = LinkReport{.from = "host memory",
                                            .to = fmt::format("GPU {}", work.rank),
                                            .link_class = "pcie",
                                            .bytes = bytes * static_cast<double>(iterations),
                                            .busy = host * iterations,
                                            .utilization = host.seconds() / mean.seconds()}});
  return out;
}

}  // namespace

RunOutput run_recommendation(ResolvedScenario& context, const RecommendationShape& shape,
                             convergence::UpdateSchedule* schedule) {
  const Scenario& s = context.scenario();
  if (s.training.communication.value == Communication::parameter_server) {
    return run_recommendation_servers(context, shape, schedule);
  }
  check_recommendation_supported(s);
  const RecommendationPlan plan = plan_recommendation(context, shape);
  const Passes work = passes(context, plan);
  const EmbeddingComm comm = embedding_comm(context, plan.placement);
  const std::int64_t w = context.workers();
  std::vector<std::size_t> all(static_cast<std::size_t>(w));
  std::iota(all.begin(), all.end(), std::size_t{0});
  ChunkWork chunk;
  chunk.forward_compute = work.forward;
  chunk.backward_compute = work.backward;
  chunk.forward_expert = comm.forward + work.host;
  chunk.backward_expert = comm.backward + work.host;
  chunk.units = work.units;
  ModelParallelSetup setup;
  setup.micro_batches = s.model.micro_batches;
  setup.data = w;
  setup.expert_data = w;
  setup.work = {{chunk}};
  setup.optimizer_step = {dense_step(context, work)};
  setup.iterations = s.training.iterations;
  setup.data_collective = [&context, all](CollectiveOp op, Bytes bytes, bool) {
    return all.size() > 1 ? context.group_collective(op, bytes, {all}).time : SimTime::zero();  // one GPU: nothing
  };
  const ModelParallelResult result = run_model_parallel(setup);

  RunOutput out;
  TrainingReport& r = out.report;
  r = context.base_report();
  r.memory = plan.memory.report;
  r.global_batch = w * context.batch() * s.model.micro_batches;
  // One GPU's reference is the job's own rule on one GPU: the tables' update fused into backward, the dense
  // optimizer over the dense part (base_report's would step an optimizer over every table's parameters), on the
  // median chip (the job's times are its slowest chip's, ResolvedScenario::pace).
  r.single_gpu_iteration =
      (work.one_gpu * s.model.micro_batches + setup.optimizer_step.front()).scaled(1 / context.pace());
  r.single_gpu_samples_per_second =
      static_cast<double>(context.batch() * s.model.micro_batches) / r.single_gpu_iteration.seconds();
  const SimTime mean = SimTime::from_ps(result.total.ps() / s.training.iterations);
  fill_throughput(context, r, s.training.iterations, result.total, mean,
                  nearest_rank_percentile(result.iteration_times, 50),
                  nearest_rank_percentile(result.iteration_times, 99));
  const ModelParallelResult::Stage& st = result.stages.front();
  for (std::int64_t rank = 0; rank < w; ++rank) {
    r.per_worker.push_back({.compute = st.compute,
                            .optimizer = st.optimizer,
                            .exposed_communication = st.expert + st.data_wait,
                            .straggler_wait = SimTime::zero(),
                            .framework_overhead = SimTime::zero(),
                            .overlap_interference = SimTime::zero(),
                            .pipeline_bubble = SimTime::zero(),
                            .updates = std::nullopt,
                            .exposed_expert = st.expert});
  }
  for (const ChunkWork::Unit& u : w > 1 ? work.units : std::vector<ChunkWork::Unit>{}) {
    r.buckets.push_back(
        allreduce_bucket_report(u.bytes, context.group_collective(CollectiveOp::allreduce, u.bytes, {all})));
  }
  compute_shares(r);
  r.group_communication = groups(work, comm, result, s.model.micro_batches, s.training.iterations);
  for (const GroupCommunication& g : r.group_communication) {
    r.causes.push_back({.cause = "communication", .group = g.group, .per_iteration = g.exposed, .measured = true});
  }
  if (schedule != nullptr) *schedule = synchronous_schedule(w, result.iteration_times);
  return out;
}

std::optional<RecommendationProbe> probe_recommendation(const Scenario& scenario, Workspace& workspace) {
  const std::optional<RecommendationShape> shape = recommendation_shape(scenario);
  if (!shape) return std::nullopt;
  check_run_memory(scenario);
  ResolvedScenario context(scenario, workspace, nullptr);
  RecommendationProbe out{.shape = *shape, .workers = context.workers()};
  if (scenario.training.communication.value == Communication::parameter_server) {
    out.servers = true;
    out.memory = servers_memory(context, *shape);
    return out;
  }
  check_recommendation_supported(scenario);
  const RecommendationPlan plan = plan_recommendation(context, *shape, false);
  const Passes work = passes(context, plan);
  out.lower_bound =
      (work.forward + work.backward + work.host + work.host) * scenario.model.micro_batches + dense_step(context, work);
  out.memory = plan.memory;
  return out;
}

}  // namespace syncsim::run
