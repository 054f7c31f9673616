#include "recommendation_servers.hpp"

#include <algorithm>

#include "recommendation_context.hpp"
#include "syncsim/compute/optimizer.hpp"
#include "syncsim/scenario/training_config.hpp"

namespace syncsim::run {

RecommendationServers recommendation_servers(const ResolvedScenario& context, const RecommendationShape& shape) {
  const Scenario& s = context.scenario();
  const std::int64_t e = element_bytes(context.precision());
  const std::int64_t replicated = 2 * e + optimizer_state_bytes(s.model.optimizer.value, context.precision());
  const MemoryRule rule = sharded_memory_rule(s.model.recommendation.optimizer.value, e, replicated);
  RecommendationServers out;
  double held = 0;
  double rows_pulled = 0;
  for (const EmbeddingTable& table : shape.tables) {
    out.names.push_back(table.name);
    out.tables.push_back(sparse_exchange(table, context.batch() * s.model.micro_batches, e));
    out.push_bytes += out.tables.back().push_bytes;
    out.pull_bytes += out.tables.back().pull_bytes;
    rows_pulled += out.tables.back().unique_rows * static_cast<double>(table.dim * e);
    held += static_cast<double>(table.rows) * static_cast<double>(table.dim * rule.per_element + rule.per_row);
  }
  // One dimension for every table (the interaction needs it: check_recommendation).
  const std::int64_t dim = shape.tables.empty() ? 0 : shape.tables.front().dim;
  out.row_bytes = static_cast<double>(kEmbeddingIdBytes + dim * e);
  out.update_bytes_per_row = sparse_update_bytes(1, dim, rule, e);
  const std::int64_t servers = std::max<std::int64_t>(1, s.training.parameter_servers.count.value);
  out.held_per_server = Bytes{std::llround(held / static_cast<double>(servers))};
  const ModelSpec dense = dense_part(context.model());
  const double dense_share =
      static_cast<double>(dense.params()) / static_cast<double>(std::max<std::int64_t>(1, context.model().params()));
  out.dense_step = SimTime::from_seconds(context.optimizer_step().seconds() * dense_share);
  out.memory = memory_check(dense, context.gpu(), context.batch(), context.precision(), s.model.optimizer.value,
                            MemoryLayout{.data = context.workers()});
  const Bytes rows{std::llround(2 * rows_pulled)};  // the rows pulled and their gradients, held through the step
  out.memory.activations += rows;
  out.memory.allocated += rows;
  out.memory.reserved += rows;
  out.memory.total += rows;
  out.memory.fits = out.memory.total <= out.memory.capacity;
  out.memory.shortfall = out.memory.fits ? Bytes{0} : out.memory.total - out.memory.capacity;
  return out;
}

RecommendationMemory servers_memory(const ResolvedScenario& context, const RecommendationShape& shape) {
  const Scenario& s = context.scenario();
  const RecommendationServers sparse = recommendation_servers(context, shape);
  const std::int64_t e = element_bytes(context.precision());
  const MemoryRule rule = sharded_memory_rule(s.model.recommendation.optimizer.value, e, 0);
  RecommendationMemory m;
  m.report = sparse.memory;
  m.dense_total = sparse.memory.total;
  ServerTables servers{.count = s.training.parameter_servers.count.value,
                       .host = std::string(to_string(s.training.parameter_servers.host)),
                       .per_server = sparse.held_per_server,
                       .rows_on_gpu = Bytes{0},
                       .tables = {}};
  double rows = 0;
  for (std::size_t t = 0; t < shape.tables.size(); ++t) {
    const EmbeddingTable& table = shape.tables[t];
    servers.tables.push_back({.name = table.name,
                              .on_servers = Bytes{table.rows * (table.dim * rule.per_element + rule.per_row)},
                              .rows_pulled = sparse.tables[t].unique_rows});
    rows += sparse.tables[t].unique_rows * static_cast<double>(table.dim * e);
  }
  servers.rows_on_gpu = Bytes{std::llround(2 * rows)};
  m.servers = std::move(servers);
  return m;
}

std::vector<TableStaleness> table_staleness(const ResolvedScenario& context, const RecommendationShape& shape) {
  const std::int64_t samples = context.batch() * context.scenario().model.micro_batches;
  std::vector<TableStaleness> out;
  for (const EmbeddingTable& table : shape.tables) {
    out.push_back({.table = table.name,
                   .iterations = 1,
                   .missed_updates =
                       static_cast<double>(context.workers()) * read_touched_share(table, samples * table.lookups)});
  }
  return out;
}

void finish_servers_report(const ResolvedScenario& context, const RecommendationServers& sparse,
                           const BucketPlan& dense, bool dense_on_servers, ExposedExchange exposed, TrainingReport& r) {
  const Scenario& s = context.scenario();
  r.memory = sparse.memory;
  const LayerTimes times = context.layer_times();
  SimTime one_gpu;
  for (std::size_t l = 0; l < times.forward.size(); ++l) one_gpu += times.forward[l] + times.backward[l];
  // On the median chip: the job's times are its slowest chip's (ResolvedScenario::pace).
  r.single_gpu_iteration = (one_gpu * s.model.micro_batches + sparse.dense_step).scaled(1 / context.pace());
  r.single_gpu_samples_per_second =
      static_cast<double>(context.batch() * s.model.micro_batches) / r.single_gpu_iteration.seconds();
  r.scaling_efficiency = r.samples_per_second / (static_cast<double>(r.workers) * r.single_gpu_samples_per_second);
  if (!dense_on_servers) {
    r.group_communication.push_back({.group = "data",
                                     .collectives = "allreduce per bucket",
                                     .bytes_per_gpu = 2 * static_cast<double>(dense.total_bytes().value),
                                     .exposed = exposed.dense});
  }
  r.group_communication.push_back(
      {.group = "embedding",
       .collectives = dense_on_servers ? "push and pull of the dense buckets and of the rows a batch touches"
                                       : "sparse pull and push of the rows a batch touches",
       .bytes_per_gpu = sparse.push_bytes + sparse.pull_bytes +
                        (dense_on_servers ? 2 * static_cast<double>(dense.total_bytes().value) : 0),
       .exposed = exposed.sparse});
  for (const GroupCommunication& g : r.group_communication) {
    r.causes.push_back({.cause = "communication", .group = g.group, .per_iteration = g.exposed, .measured = false});
  }
}

}  // namespace syncsim::run
