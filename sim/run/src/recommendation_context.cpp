#include "recommendation_context.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "recommendation_tiers.hpp"
#include "syncsim/compute/optimizer.hpp"
#include "syncsim/core/closest_name.hpp"

namespace syncsim::run {

namespace {

// The table requests in the model's order: `default` for every table the scenario does not name.
std::vector<ShardingRequest> requests(const Scenario& s, const RecommendationShape& shape, std::int64_t world) {
  const EmbeddingShardingConfig& c = s.model.recommendation.sharding;
  std::vector<ShardingRequest> out(shape.tables.size(), c.all.value);
  std::vector<std::string_view> names;
  for (const EmbeddingTable& t : shape.tables) names.push_back(t.name);
  for (const auto& [name, request] : c.tables) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      const std::string_view near = closest_name(name, names);
      throw request.error(fmt::format("the model has no table '{}'{}", name,
                                      near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near)));
    }
    out[static_cast<std::size_t>(it - names.begin())] = request.value;
  }
  // Each request checked against its table here, at its key (the placement's own check knows no keys).
  for (std::size_t t = 0; t < out.size(); ++t) {
    if (!out[t]) continue;
    const auto key = std::find_if(c.tables.begin(), c.tables.end(), [&](const auto& e) { return e.first == names[t]; });
    const Located<ShardingRequest>& at = key != c.tables.end() ? key->second : c.all;
    for (std::int64_t rank : out[t]->ranks) {
      if (rank >= world) throw at.error(fmt::format("rank {} is not one of the {} GPUs", rank, world));
    }
    const auto k = static_cast<std::int64_t>(out[t]->ranks.size());
    if (out[t]->type == EmbeddingShardingType::column_wise && shape.tables[t].dim % k != 0) {
      throw at.error(fmt::format("{} column-wise shards do not divide table '{}''s dimension {}", k, names[t],
                                 shape.tables[t].dim));
    }
  }
  return out;
}

RecommendationMemory memory_of(const ResolvedScenario& context, const EmbeddingPlacement& placement,
                               const MemoryRule& rule, const MemoryRule& weights_rule, const MemoryReport& dense) {
  const std::int64_t w = placement.world();
  const std::int64_t e = element_bytes(context.precision());
  RecommendationMemory m;
  m.report = dense;
  m.dense_total = dense.total;
  m.fullest_rank = placement.fullest_rank(rule);
  const std::int64_t r = m.fullest_rank;
  const MemoryRule grads{.per_element = 0, .per_row = 0, .replicated_per_element = e, .cached_per_element = 0};
  for (std::size_t t = 0; t < placement.tables().size(); ++t) {
    Bytes largest{0};
    for (std::int64_t k = 0; k < w; ++k) largest = std::max(largest, placement.table_bytes(t, k, rule));
    m.tables.push_back(
        {.name = placement.tables()[t].name,
         .sharding = placement.sharding()[t],
         .on_fullest = placement.table_bytes(t, r, rule),
         .largest = largest,
         .replicated = Bytes{placement.tables()[t].rows * placement.tables()[t].dim * rule.replicated_per_element}});
  }
  m.embeddings = placement.rank_bytes(r, rule);
  std::int64_t row_wise_dims = 0;
  for (std::size_t t = 0; t < placement.tables().size(); ++t) {
    if (placement.sharding()[t].type == EmbeddingShardingType::row_wise) row_wise_dims += placement.tables()[t].dim;
  }
  m.pooled = Bytes{2 * w * context.batch() * (placement.pooled_columns(r) + row_wise_dims) * e};
  MemoryReport& out = m.report;
  const Bytes weights = placement.rank_bytes(r, weights_rule);
  const Bytes gradients = placement.rank_bytes(r, grads);
  out.weights += weights;
  out.gradients += gradients;
  out.optimizer_state += m.embeddings - weights - gradients;
  out.activations += m.pooled;
  const Bytes added = m.embeddings + m.pooled;
  out.allocated += added;
  out.reserved += added;
  out.total += added;
  out.fits = out.total <= out.capacity;
  out.shortfall = out.fits ? Bytes{0} : out.total - out.capacity;
  return m;
}

}  // namespace

// The model without its tables' parameters: the dense part memory_check counts.
ModelSpec dense_part(const ModelSpec& model) {
  std::vector<Layer> layers = model.layers();
  for (Layer& layer : layers) {
    if (layer.kind != LayerKind::embedding) continue;
    layer.params = 0;
    layer.weight_matrices = 0;
    layer.weight_rows = 0;
    layer.weight_cols = 0;
  }
  return ModelSpec(model.name(), std::move(layers));
}

void refuse_layer_parallelism(const Scenario& s) {
  const ParallelismConfig& p = s.parallelism;
  for (const Located<std::int64_t>* size : {&p.tensor, &p.pipeline, &p.context, &p.expert}) {
    if (size->value > 1) throw size->error("a recommendation model shards its tables, not its layers: give 1");
  }
  if (p.sharding.value != ShardingLevel::none) {
    throw p.sharding.error("ZeRO sharding of a recommendation model's dense part is not simulated yet");
  }
}

std::optional<RecommendationShape> recommendation_shape(const Scenario& s) {
  const RecommendationConfig& c = s.model.recommendation;
  if (c.shape) return c.shape->value;
  if (!s.model.layers.empty() || s.model.transformer) return std::nullopt;
  std::optional<RecommendationShape> shape = find_recommendation(s.model.name.value);
  if (!shape && c.given) {
    const Located<ShardingRequest>& at = c.sharding.all;
    if (!at.where.source.empty() && at.where.line > 0) throw at.error("shards embedding tables: the model has none");
    throw c.optimizer.error("updates embedding tables: the model has none");
  }
  return shape;
}

RecommendationPlan plan_recommendation(const ResolvedScenario& context, const RecommendationShape& shape,
                                       bool refuse_host_overflow) {
  const Scenario& s = context.scenario();
  const std::int64_t w = context.workers();
  const Precision precision = context.precision();
  const std::int64_t e = element_bytes(precision);
  const std::int64_t replicated = 2 * e + optimizer_state_bytes(s.model.optimizer.value, precision);
  const MemoryRule rule = sharded_memory_rule(s.model.recommendation.optimizer.value, e, replicated);
  const MemoryRule weights_rule{.per_element = e, .per_row = 0, .replicated_per_element = e, .cached_per_element = e};
  const MemoryReport dense = memory_check(dense_part(context.model()), context.gpu(), context.batch(), precision,
                                          s.model.optimizer.value, MemoryLayout{.data = w});
  const Bytes budget = dense.capacity > dense.total ? dense.capacity - dense.total : Bytes{0};
  std::vector<ShardingRequest> asked = requests(s, shape, w);
  const bool planned = std::any_of(asked.begin(), asked.end(), [](const ShardingRequest& r) {
    return !r || std::any_of(r->ranks.begin(), r->ranks.end(), [](std::int64_t k) { return k < 0; });
  });
  EmbeddingPlacement placement = at_value(s.model.recommendation.sharding.all, [&] {
    return plan_embedding_placement(shape.tables, asked, w, rule, budget);
  });
  if (refuse_host_overflow) check_host_memory(context, placement, rule);
  RecommendationMemory memory = memory_of(context, placement, rule, weights_rule, dense);
  memory.planned = planned;
  add_host_memory(memory, context, placement, rule);
  return {.shape = shape,
          .placement = std::move(placement),
          .rule = rule,
          .weights_rule = weights_rule,
          .memory = std::move(memory)};
}

}  // namespace syncsim::run
