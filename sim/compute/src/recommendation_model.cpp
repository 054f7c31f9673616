#include "syncsim/compute/recommendation_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

constexpr std::int64_t kMaxEmbeddingCount = std::numeric_limits<std::int64_t>::max() / 8;
// Ranks of a Zipf distribution summed one by one before the tail is integrated.
constexpr std::int64_t kZipfExactRanks = 65'536;
constexpr int kZipfTailSegments = 512;
// The loss: sigmoid and binary cross-entropy on the logit, a few FLOPs per sample.
constexpr std::int64_t kLossFlops = 8;

std::optional<ShapeProblem> check_widths(const std::vector<std::int64_t>& widths, const char* field) {
  if (widths.empty()) return ShapeProblem{field, "expected at least one layer width"};
  for (std::size_t i = 0; i < widths.size(); ++i) {
    if (widths[i] < 1 || widths[i] > (1LL << 24)) {
      return ShapeProblem{fmt::format("{}[{}]", field, i),
                          fmt::format("expected a layer width from 1 to 16777216, got {}", widths[i])};
    }
  }
  return std::nullopt;
}

std::optional<ShapeProblem> check_table(const EmbeddingTable& t, std::size_t i, std::int64_t dim) {
  const auto at = [i](const char* field) { return fmt::format("tables[{}].{}", i, field); };
  if (t.name.empty()) return ShapeProblem{at("name"), "expected the table's name"};
  if (t.rows < 1 || t.rows > kMaxEmbeddingCount)
    return ShapeProblem{at("rows"), fmt::format("expected rows >= 1, got {}", t.rows)};
  if (t.dim < 1 || t.dim > (1LL << 16)) {
    return ShapeProblem{at("dim"), fmt::format("expected a dimension from 1 to 65536, got {}", t.dim)};
  }
  if (t.dim != dim) {
    return ShapeProblem{at("dim"), fmt::format("is {}, but the bottom MLP's output and the other tables are {}: the "
                                               "interaction needs one dimension",
                                               t.dim, dim)};
  }
  if (t.rows > kMaxEmbeddingCount / t.dim) return ShapeProblem{at("rows"), "rows x dim is too large to count"};
  if (t.lookups < 1 || t.lookups > (1LL << 20)) {
    return ShapeProblem{at("lookups"), fmt::format("expected 1 to 1048576 ids per sample, got {}", t.lookups)};
  }
  if (t.touched_share && t.zipf) return ShapeProblem{at("zipf"), "give touched_share or zipf, not both"};
  if (t.touched_share && !(*t.touched_share > 0 && *t.touched_share <= 1)) {
    return ShapeProblem{at("touched_share"), fmt::format("expected a share in (0, 1], got {}", *t.touched_share)};
  }
  if (t.zipf && !(*t.zipf > 0 && *t.zipf <= 10)) {
    return ShapeProblem{at("zipf"), fmt::format("expected an exponent in (0, 10], got {}", *t.zipf)};
  }
  return std::nullopt;
}

Layer linear(const std::string& name, std::int64_t in, std::int64_t out) {
  return {.name = name,
          .params = in * out + out,
          .forward_flops = 2 * in * out + out,
          .weight_elements_read = in * out + out,
          .activation_elements_moved = in + out,
          .saved_elements = in,
          .weight_rows = out,
          .weight_cols = in,
          .weight_matrices = 1,
          .kind = LayerKind::gemm};
}

Layer relu(const std::string& name, std::int64_t width) {
  return {.name = name, .forward_flops = width, .activation_elements_moved = 2 * width, .saved_elements = width};
}

// The MLP's linear layers of `widths` from `in`, ReLU after each but (when `last_bare`) the last.
std::int64_t add_mlp(std::vector<Layer>& layers, const std::string& prefix, std::int64_t in,
                     const std::vector<std::int64_t>& widths, bool last_bare) {
  for (std::size_t i = 0; i < widths.size(); ++i) {
    layers.push_back(linear(fmt::format("{}.{}", prefix, i), in, widths[i]));
    in = widths[i];
    if (!(last_bare && i + 1 == widths.size())) layers.push_back(relu(fmt::format("{}.{}.relu", prefix, i), in));
  }
  return in;
}

Layer table_layer(const EmbeddingTable& t) {
  const std::int64_t pool = (t.lookups - 1) * t.dim + (t.pooling == EmbeddingPooling::mean ? t.dim : 0);
  return {.name = "embedding." + t.name,
          .params = t.rows * t.dim,
          .forward_flops = pool,
          .activation_elements_moved = t.lookups * t.dim + t.dim,
          .weight_rows = t.rows,
          .weight_cols = t.dim,
          .weight_matrices = 1,
          .kind = LayerKind::embedding};
}

// The interaction's layers; returns the top MLP's input width.
std::int64_t add_interaction(std::vector<Layer>& layers, const RecommendationShape& s, std::int64_t d) {
  const auto f = static_cast<std::int64_t>(s.tables.size()) + 1;
  if (s.interaction == FeatureInteraction::dot) {
    const std::int64_t out = f * (f - 1) / 2 + d;
    layers.push_back({.name = "interaction.dot",
                      .forward_flops = 2 * f * f * d,
                      .activation_elements_moved = f * d + f * f + out,
                      .saved_elements = f * d});
    return out;
  }
  const std::int64_t n = f * d;
  layers.push_back({.name = "interaction.concat", .activation_elements_moved = 2 * n, .saved_elements = n});
  for (std::int64_t l = 0; l < s.cross_layers; ++l) {
    const std::int64_t r = s.cross_rank;
    const std::int64_t weights = r > 0 ? 2 * n * r : n * n;
    layers.push_back({.name = fmt::format("interaction.cross.{}", l),
                      .params = weights + n,
                      .forward_flops = 2 * weights + 3 * n,
                      .weight_elements_read = weights + n,
                      .activation_elements_moved = 3 * n + r,
                      .saved_elements = n + r,
                      .weight_rows = r > 0 ? r : n,
                      .weight_cols = n,
                      .weight_matrices = r > 0 ? 2 : 1,
                      .kind = LayerKind::gemm});
  }
  return n;
}

}  // namespace

std::optional<ShapeProblem> check_recommendation(const RecommendationShape& s) {
  if (s.dense_features < 1 || s.dense_features > (1LL << 24)) {
    return ShapeProblem{"dense_features", fmt::format("expected 1 to 16777216 features, got {}", s.dense_features)};
  }
  if (auto p = check_widths(s.bottom_mlp, "bottom_mlp")) return p;
  if (auto p = check_widths(s.top_mlp, "top_mlp")) return p;
  if (s.tables.empty()) return ShapeProblem{"tables", "expected at least one embedding table"};
  if (s.tables.size() > 4096)
    return ShapeProblem{"tables", fmt::format("expected at most 4096 tables, got {}", s.tables.size())};
  std::set<std::string, std::less<>> names;
  for (std::size_t i = 0; i < s.tables.size(); ++i) {
    if (auto p = check_table(s.tables[i], i, s.bottom_mlp.back())) return p;
    if (!names.insert(s.tables[i].name).second) {
      return ShapeProblem{fmt::format("tables[{}].name", i),
                          fmt::format("table '{}' is named twice", s.tables[i].name)};
    }
  }
  if (s.interaction == FeatureInteraction::dcn) {
    if (s.cross_layers < 1 || s.cross_layers > 64) {
      return ShapeProblem{"cross_layers", fmt::format("expected 1 to 64 cross layers, got {}", s.cross_layers)};
    }
    const std::int64_t n = static_cast<std::int64_t>(s.tables.size() + 1) * s.bottom_mlp.back();
    if (s.cross_rank < 0 || s.cross_rank > n) {
      return ShapeProblem{"cross_rank",
                          fmt::format("expected 0 (full rank) to the cross width {}, got {}", n, s.cross_rank)};
    }
  }
  std::int64_t params = 0;
  for (const EmbeddingTable& t : s.tables) {
    if (params > kMaxEmbeddingCount - t.rows * t.dim)
      return ShapeProblem{"tables", "the tables' parameters are too many to count"};
    params += t.rows * t.dim;
  }
  return std::nullopt;
}

ModelSpec recommendation_model(std::string name, const RecommendationShape& s) {
  if (const auto problem = check_recommendation(s)) throw InputError(problem->message, std::nullopt, problem->field);
  std::vector<Layer> layers;
  const std::int64_t d = add_mlp(layers, "bottom", s.dense_features, s.bottom_mlp, false);
  for (const EmbeddingTable& t : s.tables) layers.push_back(table_layer(t));
  const std::int64_t top_in = add_interaction(layers, s, d);
  const std::int64_t out = add_mlp(layers, "top", top_in, s.top_mlp, true);
  layers.push_back(
      {.name = "loss", .forward_flops = kLossFlops * out, .activation_elements_moved = 2 * out, .saved_elements = out});
  return ModelSpec(std::move(name), std::move(layers));
}

std::int64_t embedding_params(const RecommendationShape& shape) {
  std::int64_t params = 0;
  for (const EmbeddingTable& t : shape.tables) params += t.rows * t.dim;
  return params;
}

namespace {

// H(n, s) = the sum of i^-s for i = 1..n: exact over the first kZipfExactRanks ranks, the tail as the integral of
// x^-s from K + 1/2 to n + 1/2.
double zipf_harmonic(double s, std::int64_t n) {
  const std::int64_t exact = std::min(n, kZipfExactRanks);
  double h = 0;
  for (std::int64_t i = 1; i <= exact; ++i) h += std::pow(static_cast<double>(i), -s);
  if (n <= exact) return h;
  const double a = static_cast<double>(exact) + 0.5;
  const double b = static_cast<double>(n) + 0.5;
  return h + (std::abs(s - 1) < 1e-12 ? std::log(b / a) : (std::pow(b, 1 - s) - std::pow(a, 1 - s)) / (1 - s));
}

// Over the table's access distribution p_i, the sum of w(p_i) (1 - (1 - p_i)^n) with w = 1 (read_weighted false:
// the expected distinct rows n lookups hit) or w = p_i (true: the chance that one more lookup reads a row among
// them). Zipf: exact for the first kZipfExactRanks ranks, the tail integrated over log-spaced segments.
double touched_sum(const EmbeddingTable& t, std::int64_t lookups, bool read_weighted) {
  const auto n = static_cast<double>(lookups);
  const auto rows = static_cast<double>(t.rows);
  if (lookups <= 0) return 0;
  if (t.touched_share || !t.zipf) {  // uniform over the rows; a share: uniform over share x n of them
    const double unique =
        t.touched_share ? std::min(rows, *t.touched_share * n) : -rows * std::expm1(n * std::log1p(-1.0 / rows));
    return read_weighted ? unique / rows : unique;
  }
  const double s = *t.zipf;
  const std::int64_t exact = std::min(t.rows, kZipfExactRanks);
  const double h = zipf_harmonic(s, t.rows);
  const double lo = static_cast<double>(exact) + 0.5;
  const double hi = rows + 0.5;
  const auto hit = [n, h, s, read_weighted](double rank) {
    const double p = std::pow(rank, -s) / h;
    return (read_weighted ? p : 1.0) * -std::expm1(n * std::log1p(-p));
  };
  double sum = 0;
  for (std::int64_t i = 1; i <= exact; ++i) sum += hit(static_cast<double>(i));
  if (t.rows > exact) {
    // Log-spaced midpoints over the tail: each segment's ranks times the term of its middle rank.
    const double ratio = std::pow(hi / lo, 1.0 / kZipfTailSegments);
    for (int k = 0; k < kZipfTailSegments; ++k) {
      const double a = lo * std::pow(ratio, k);
      const double b = a * ratio;
      sum += (b - a) * hit(std::sqrt(a * b));
    }
  }
  return read_weighted ? std::min(sum, 1.0) : std::min({sum, rows, n});
}

}  // namespace

double expected_unique_rows(const EmbeddingTable& t, std::int64_t lookups) {
  return touched_sum(t, lookups, false);
}

double read_touched_share(const EmbeddingTable& t, std::int64_t lookups) {
  return touched_sum(t, lookups, true);
}

double cache_hit_rate(const EmbeddingTable& t, std::int64_t cached_rows) {
  if (cached_rows <= 0 || t.rows <= 0) return 0;
  if (cached_rows >= t.rows) return 1;
  if (!t.zipf) return static_cast<double>(cached_rows) / static_cast<double>(t.rows);
  return zipf_harmonic(*t.zipf, cached_rows) / zipf_harmonic(*t.zipf, t.rows);
}

std::string_view to_string(EmbeddingPooling pooling) {
  return pooling == EmbeddingPooling::sum ? "sum" : "mean";
}

std::string_view to_string(FeatureInteraction interaction) {
  return interaction == FeatureInteraction::dot ? "dot" : "dcn";
}

}  // namespace syncsim
