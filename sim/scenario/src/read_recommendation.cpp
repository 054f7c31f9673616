// model.recommendation, model.embedding_sharding and model.embedding_optimizer (recommendation_config.hpp): the shape
// checked at its keys by the generator's own check_recommendation, the sharding requests by name.
#include <fmt/format.h>

#include <array>

#include "field_reader.hpp"
#include "sections.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim::scenario_detail {

namespace {

// A table's `repeat`: far past any published model (MLPerf's has 26 tables, production ones hundreds).
constexpr std::int64_t kMaxTables = 4096;

constexpr std::array<std::pair<std::string_view, EmbeddingPooling>, 2> kPoolingNames{
    {{"sum", EmbeddingPooling::sum}, {"mean", EmbeddingPooling::mean}}};
constexpr std::array<std::pair<std::string_view, FeatureInteraction>, 2> kInteractionNames{
    {{"dot", FeatureInteraction::dot}, {"dcn", FeatureInteraction::dcn}}};
constexpr std::array<std::pair<std::string_view, EmbeddingOptimizer>, 4> kEmbeddingOptimizerNames{
    {{"sgd", EmbeddingOptimizer::sgd},
     {"rowwise_adagrad", EmbeddingOptimizer::rowwise_adagrad},
     {"adagrad", EmbeddingOptimizer::adagrad},
     {"adam", EmbeddingOptimizer::adam}}};
constexpr std::array<std::pair<std::string_view, EmbeddingComputeKernel>, 3> kKernelNames{
    {{"fused", EmbeddingComputeKernel::fused},
     {"fused_uvm", EmbeddingComputeKernel::fused_uvm},
     {"fused_uvm_caching", EmbeddingComputeKernel::fused_uvm_caching}}};
constexpr std::array<std::pair<std::string_view, int>, 5> kShardingNames{
    {{"auto", -1}, {"table_wise", 0}, {"row_wise", 1}, {"column_wise", 2}, {"data_parallel", 3}}};

std::vector<std::int64_t> read_widths(const ConfigNode& node, const std::string& path) {
  std::vector<std::int64_t> widths;
  const auto& items = read_list(node, path);
  for (std::size_t i = 0; i < items.size(); ++i) widths.push_back(read_whole(items[i], item_path(path, i), 1));
  return widths;
}

void read_tables(const ConfigNode& node, const std::string& path, std::vector<EmbeddingTable>& out,
                 std::vector<std::string>& keys) {
  const auto& items = read_list(node, path);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string at = item_path(path, i);
    const MapReader r(items[i], at, {"name", "rows", "dim", "lookups", "pooling", "touched_share", "zipf", "repeat"});
    EmbeddingTable t{.name = read_text(r.require("name", "the table's name"), r.path("name")),
                     .rows = read_whole(r.require("rows", "rows in the table"), r.path("rows"), 1),
                     .dim = read_whole(r.require("dim", "the embedding dimension"), r.path("dim"), 1)};
    if (const ConfigNode* v = r.get("lookups")) t.lookups = read_whole(*v, r.path("lookups"), 1);
    if (const ConfigNode* v = r.get("pooling")) t.pooling = read_choice(*v, r.path("pooling"), kPoolingNames);
    if (const ConfigNode* v = r.get("touched_share")) t.touched_share = read_number(*v, r.path("touched_share"));
    if (const ConfigNode* v = r.get("zipf")) t.zipf = read_number(*v, r.path("zipf"));
    std::int64_t repeat = 1;
    if (const ConfigNode* v = r.get("repeat")) repeat = read_count(*v, r.path("repeat"), 1);
    if (repeat > kMaxTables - static_cast<std::int64_t>(out.size())) {
      fail(items[i], r.path("repeat"), fmt::format("the model would have more than {} tables", kMaxTables));
    }
    for (std::int64_t k = 0; k < repeat; ++k) {
      out.push_back(t);
      if (repeat > 1) out.back().name = fmt::format("{}_{}", t.name, k);
      keys.push_back(at);
    }
  }
}

// check_recommendation's verdict at the key it names: "tables[3].rows" is the file's table entry holding table 3
// (after repeats), its `rows` key when written.
void check_recommendation_at_keys(const RecommendationShape& shape, const MapReader& reader,
                                  const std::vector<std::string>& keys, const ConfigNode& tables) {
  const auto problem = check_recommendation(shape);
  if (!problem) return;
  const std::string& field = problem->field;
  if (field.rfind("tables[", 0) == 0 && field.find(']') != std::string::npos) {
    const std::size_t close = field.find(']');
    const std::size_t index = std::stoul(field.substr(7, close - 7));
    const std::string rest = close + 1 < field.size() ? field.substr(close + 2) : "";
    const std::string entry = keys.at(index);
    const std::size_t item = std::stoul(entry.substr(entry.rfind('[') + 1));
    const ConfigNode& node = read_list(tables, reader.path("tables")).at(item);
    const MapReader r(node, entry, {"name", "rows", "dim", "lookups", "pooling", "touched_share", "zipf", "repeat"});
    const ConfigNode* value = rest.empty() ? nullptr : r.get(rest);
    fail(value ? *value : node, rest.empty() ? entry : r.path(rest), problem->message);
  }
  const std::string key = field.substr(0, field.find('['));
  if (const ConfigNode* value = reader.get(key)) fail(*value, reader.path(field), problem->message);
  throw InputError(problem->message, reader.where(), reader.path(field));
}

Located<RecommendationShape> read_shape(const ConfigNode& node, const std::string& path) {
  const MapReader reader(
      node, path, {"dense_features", "bottom_mlp", "tables", "interaction", "cross_layers", "cross_rank", "top_mlp"});
  RecommendationShape shape;
  if (const ConfigNode* v = reader.get("dense_features")) {
    shape.dense_features = read_whole(*v, reader.path("dense_features"), 1);
  }
  shape.bottom_mlp = read_widths(reader.require("bottom_mlp", "the bottom MLP's widths"), reader.path("bottom_mlp"));
  shape.top_mlp = read_widths(reader.require("top_mlp", "the top MLP's widths"), reader.path("top_mlp"));
  const ConfigNode& tables = reader.require("tables", "the embedding tables");
  std::vector<std::string> keys;
  read_tables(tables, reader.path("tables"), shape.tables, keys);
  if (const ConfigNode* v = reader.get("interaction")) {
    shape.interaction = read_choice(*v, reader.path("interaction"), kInteractionNames);
  }
  for (const char* key : {"cross_layers", "cross_rank"}) {
    const ConfigNode* v = reader.get(key);
    if (!v) continue;
    if (shape.interaction != FeatureInteraction::dcn) fail(*v, reader.path(key), "shapes a dcn interaction");
    (std::string_view(key) == "cross_layers" ? shape.cross_layers : shape.cross_rank) =
        read_whole(*v, reader.path(key), 0);
  }
  check_recommendation_at_keys(shape, reader, keys, tables);
  return located(shape, node, path);
}

// compute_kernel and cache_load_factor (TorchRec's EmbeddingComputeKernel and CacheParams.load_factor).
void read_kernel(const MapReader& r, TableSharding& s) {
  if (const ConfigNode* v = r.get("compute_kernel")) {
    s.kernel = read_choice(*v, r.path("compute_kernel"), kKernelNames);
    if (s.type == EmbeddingShardingType::data_parallel && s.kernel != EmbeddingComputeKernel::fused) {
      fail(*v, r.path("compute_kernel"),
           "a data_parallel table is a dense parameter in GPU memory: host-memory kernels need table_wise, row_wise "
           "or column_wise");
    }
  }
  if (const ConfigNode* v = r.get("cache_load_factor")) {
    if (s.kernel != EmbeddingComputeKernel::fused_uvm_caching) {
      fail(*v, r.path("cache_load_factor"), "sizes the GPU cache of compute_kernel: fused_uvm_caching");
    }
    s.cache_load_factor = read_number(*v, r.path("cache_load_factor"));
    if (!(s.cache_load_factor > 0 && s.cache_load_factor <= 1)) {
      fail(*v, r.path("cache_load_factor"), "expected the cached share of the table's rows, in (0, 1]");
    }
  }
}

ShardingRequest read_request(const ConfigNode& node, const std::string& path) {
  if (node.kind == ConfigNode::Kind::scalar) {
    const int type = read_choice(node, path, kShardingNames);
    if (type < 0) return std::nullopt;
    const auto sharding = static_cast<EmbeddingShardingType>(type);
    if (sharding == EmbeddingShardingType::column_wise) {
      fail(node, path,
           "column_wise needs its shards: {type: column_wise, shards: K} or {type: column_wise, ranks: [...]}");
    }
    return TableSharding(sharding, sharding == EmbeddingShardingType::table_wise ? std::vector<std::int64_t>{-1}
                                                                                 : std::vector<std::int64_t>{});
  }
  const MapReader r(node, path, {"type", "rank", "ranks", "shards", "compute_kernel", "cache_load_factor"});
  const int type = read_choice(r.require("type", "the sharding type"), r.path("type"), kShardingNames);
  if (type < 0) fail(*r.get("type"), r.path("type"), "auto takes no rank or shards: write it alone");
  TableSharding s(static_cast<EmbeddingShardingType>(type));
  read_kernel(r, s);
  const bool table_wise = s.type == EmbeddingShardingType::table_wise;
  const bool column_wise = s.type == EmbeddingShardingType::column_wise;
  for (const char* key : {"rank", "ranks", "shards"}) {
    const ConfigNode* v = r.get(key);
    const std::string_view k = key;
    if (v && ((k == "rank" && !table_wise) || (k != "rank" && !column_wise))) {
      fail(*v, r.path(key), fmt::format("does not apply to {}", to_string(s.type)));
    }
  }
  if (table_wise) s.ranks = {r.get("rank") ? read_whole(*r.get("rank"), r.path("rank"), 0) : -1};
  if (column_wise) {
    if (r.get("ranks") && r.get("shards")) fail(*r.get("shards"), r.path("shards"), "give ranks or shards, not both");
    if (const ConfigNode* v = r.get("ranks")) {
      const auto& items = read_list(*v, r.path("ranks"));
      for (std::size_t i = 0; i < items.size(); ++i)
        s.ranks.push_back(read_whole(items[i], item_path(r.path("ranks"), i), 0));
      if (s.ranks.empty()) fail(*v, r.path("ranks"), "expected at least one rank");
    } else {
      const ConfigNode& v2 = r.require("shards", "how many column-wise shards (or their ranks)");
      s.ranks.assign(static_cast<std::size_t>(read_count(v2, r.path("shards"), 1)), -1);
      if (s.ranks.size() > 65536) fail(v2, r.path("shards"), "expected at most 65536 shards");
    }
  }
  return s;
}

EmbeddingShardingConfig read_sharding(const ConfigNode& node, const std::string& path, const MapReader& model) {
  EmbeddingShardingConfig config{.all = model.defaulted_empty<ShardingRequest>("embedding_sharding"), .tables = {}};
  if (node.kind != ConfigNode::Kind::mapping) {
    config.all = located(read_request(node, path), node, path);
    return config;
  }
  for (const ConfigEntry& entry : node.entries) {
    const std::string at = child_path(path, entry.key);
    if (entry.key == "default") {
      config.all = located(read_request(entry.value, at), entry.value, at);
    } else {
      config.tables.emplace_back(entry.key, located(read_request(entry.value, at), entry.value, at));
    }
  }
  return config;
}

}  // namespace

RecommendationConfig read_recommendation(const MapReader& reader) {
  RecommendationConfig config;
  config.optimizer = reader.defaulted("embedding_optimizer", EmbeddingOptimizer::rowwise_adagrad);
  config.sharding.all = reader.defaulted_empty<ShardingRequest>("embedding_sharding");
  if (const ConfigNode* shape = reader.get("recommendation")) {
    config.shape = read_shape(*shape, reader.path("recommendation"));
  }
  if (const ConfigNode* sharding = reader.get("embedding_sharding")) {
    config.sharding = read_sharding(*sharding, reader.path("embedding_sharding"), reader);
  }
  if (const ConfigNode* optimizer = reader.get("embedding_optimizer")) {
    config.optimizer = located(read_choice(*optimizer, reader.path("embedding_optimizer"), kEmbeddingOptimizerNames),
                               *optimizer, reader.path("embedding_optimizer"));
  }
  config.given = reader.get("recommendation") || reader.get("embedding_sharding") || reader.get("embedding_optimizer");
  return config;
}

}  // namespace syncsim::scenario_detail
