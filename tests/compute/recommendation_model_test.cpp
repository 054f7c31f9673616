// Recommendation models: the catalog's parameter counts from the published configurations, the layers' counts by
// the rules of model_spec.hpp, the access distributions' distinct rows, and the shape's errors at their fields.
#include <catch2/catch.hpp>

#include <cmath>

#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/compute/recommendation_model.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;

namespace {

// An MLP's parameters from `in` through `widths` (weights and biases).
std::int64_t mlp(std::int64_t in, std::initializer_list<std::int64_t> widths) {
  std::int64_t params = 0;
  for (std::int64_t w : widths) {
    params += in * w + w;
    in = w;
  }
  return params;
}

const Layer& layer(const ModelSpec& m, const std::string& name) {
  for (const Layer& l : m.layers()) {
    if (l.name == name) return l;
  }
  FAIL("no layer " << name);
  return m.layers().front();
}

RecommendationShape tiny() {
  return {.dense_features = 4,
          .bottom_mlp = {8},
          .tables = {{.name = "a", .rows = 100, .dim = 8, .lookups = 3},
                     {.name = "b", .rows = 50, .dim = 8, .lookups = 1, .pooling = EmbeddingPooling::mean}},
          .top_mlp = {1}};
}

}  // namespace

TEST_CASE("the catalog's DLRM configurations have the published tables and MLPs", "[compute][recommendation]") {
  // Criteo Kaggle: 33,762,577 rows of 16; bottom 13-512-256-64-16; dot over 27 features: 351 + 16 = 367 inputs.
  CHECK(find_model("dlrm-kaggle").params() ==
        33'762'577LL * 16 + mlp(13, {512, 256, 64, 16}) + mlp(367, {512, 256, 1}));
  // MLPerf v0.7 DLRM on Criteo 1TB: 187,767,399 rows of 128 after the 40 M hash; top input 351 + 128 = 479.
  const ModelSpec mlperf = find_model("DLRM");
  CHECK(mlperf.name() == "dlrm-mlperf");
  CHECK(mlperf.params() == 187'767'399LL * 128 + mlp(13, {512, 256, 128}) + mlp(479, {1024, 1024, 512, 256, 1}));
  CHECK(layer(mlperf, "top.0").weight_cols == 479);
  // DLRM-DCNv2: 204,184,588 rows of 128; three cross layers of rank 512 over 27 x 128 = 3,456.
  const std::int64_t n = 27 * 128;
  const std::int64_t cross = 3 * (2 * n * 512 + n);
  CHECK(find_model("dlrm-dcnv2").params() ==
        204'184'588LL * 128 + mlp(13, {512, 256, 128}) + cross + mlp(n, {1024, 1024, 512, 256, 1}));
  CHECK(find_model("dlrm-dcnv2").params() == 26'151'671'809);
  // The seed's model: five tables of 156.25 M rows of 128 hold 100 B parameters; 100.55 B in all.
  const RecommendationShape seed = *find_recommendation("recsys-100b");
  CHECK(embedding_params(seed) == 5 * 156'250'000LL * 128 + (204'184'588LL - 5 * 40'000'000LL) * 128);
  CHECK(find_model("recsys-100b").params() == 100'551'671'809);
}

TEST_CASE("an embedding table is a memory-bound gather with no whole weight read", "[compute][recommendation]") {
  const ModelSpec m = recommendation_model("tiny", tiny());
  const Layer& a = layer(m, "embedding.a");
  CHECK(a.kind == LayerKind::embedding);
  CHECK(a.params == 800);
  CHECK(a.weight_elements_read == 0);
  CHECK(a.activation_elements_moved == 3 * 8 + 8);  // three rows gathered, one pooled vector written
  CHECK(a.forward_flops == 2 * 8);                  // sum pooling: L - 1 adds per column
  CHECK(a.saved_elements == 0);
  CHECK(layer(m, "embedding.b").forward_flops == 8);  // mean: the division, no adds
  // Dot over F = 3 vectors of 8: the Gram matrix's 2 F² d FLOPs, 3 pairs + 8 dense into the top MLP.
  CHECK(layer(m, "interaction.dot").forward_flops == 2 * 9 * 8);
  CHECK(layer(m, "top.0").weight_cols == 3 + 8);
  CHECK(m.params() == 800 + 400 + mlp(4, {8}) + mlp(11, {1}));
}

TEST_CASE("distinct rows follow the access distribution", "[compute][recommendation]") {
  EmbeddingTable t{.name = "t", .rows = 1000, .dim = 8};
  // Uniform: R (1 - (1 - 1/R)^n).
  CHECK(expected_unique_rows(t, 500) == Approx(1000 * (1 - std::pow(1 - 1e-3, 500))));
  t.touched_share = 0.25;
  CHECK(expected_unique_rows(t, 400) == Approx(100));
  // Zipf on a table small enough to be summed exactly, and one whose tail is integrated, against the sum itself.
  for (const std::int64_t rows : {1000LL, 1'000'000LL}) {
    const EmbeddingTable z{.name = "z", .rows = rows, .dim = 8, .zipf = 1.05};
    const std::int64_t n = 100'000;
    double h = 0;
    for (std::int64_t i = 1; i <= rows; ++i) h += std::pow(static_cast<double>(i), -1.05);
    double exact = 0;
    for (std::int64_t i = 1; i <= rows; ++i) exact += 1 - std::pow(1 - std::pow(static_cast<double>(i), -1.05) / h, n);
    CHECK(expected_unique_rows(z, n) == Approx(exact).epsilon(0.01));
    CHECK(expected_unique_rows(z, n) < expected_unique_rows({.name = "u", .rows = rows, .dim = 8}, n));
  }
}

TEST_CASE("a read's chance to land on a touched row, and a cache's hit rate", "[compute][recommendation]") {
  // Uniform: U / R, the distinct rows of the other batch over the table.
  const EmbeddingTable u{.name = "u", .rows = 1000, .dim = 8};
  CHECK(read_touched_share(u, 500) == Approx(expected_unique_rows(u, 500) / 1000));
  CHECK(cache_hit_rate(u, 100) == Approx(0.1));
  CHECK(cache_hit_rate(u, 0) == 0);
  CHECK(cache_hit_rate(u, 2000) == 1);
  // Zipf, summed in full against the closed forms: sum p_i (1 - (1 - p_i)^n), and H(C, s) / H(R, s).
  for (const std::int64_t rows : {1000LL, 1'000'000LL}) {
    const EmbeddingTable z{.name = "z", .rows = rows, .dim = 8, .zipf = 1.05};
    const std::int64_t n = 10'000;
    const std::int64_t cached = rows / 100;
    double h = 0;
    double h_cached = 0;
    for (std::int64_t i = 1; i <= rows; ++i) {
      h += std::pow(static_cast<double>(i), -1.05);
      if (i == cached) h_cached = h;
    }
    double read = 0;
    for (std::int64_t i = 1; i <= rows; ++i) {
      const double p = std::pow(static_cast<double>(i), -1.05) / h;
      read += p * (1 - std::pow(1 - p, n));
    }
    CHECK(read_touched_share(z, n) == Approx(read).epsilon(0.01));
    CHECK(cache_hit_rate(z, cached) == Approx(h_cached / h).epsilon(0.01));
    // Hot rows: a read lands on a touched row more often than U / R says, and 1 % of the rows serve far more
    // than 1 % of the lookups.
    CHECK(read_touched_share(z, n) > expected_unique_rows(z, n) / static_cast<double>(rows));
    CHECK(cache_hit_rate(z, cached) > 0.3);
  }
}

TEST_CASE("a bad recommendation shape names its field", "[compute][recommendation]") {
  RecommendationShape s = tiny();
  s.tables[1].dim = 16;
  CHECK(check_recommendation(s)->field == "tables[1].dim");
  s = tiny();
  s.tables[0].touched_share = 1.5;
  CHECK(check_recommendation(s)->field == "tables[0].touched_share");
  s.tables[0].zipf = 1.0;
  CHECK(check_recommendation(s)->field == "tables[0].zipf");
  s = tiny();
  s.tables[1].name = s.tables[0].name;  // a name twice (copied: assigning the literal trips GCC 12's
                                        // -Wstringop-overflow false positive)
  CHECK(check_recommendation(s)->field == "tables[1].name");
  s = tiny();
  s.interaction = FeatureInteraction::dcn;
  s.cross_rank = 100;  // more than 3 x 8
  CHECK(check_recommendation(s)->field == "cross_rank");
  s = tiny();
  s.tables.clear();
  CHECK_THROWS_AS(recommendation_model("x", s), InputError);
  CHECK_THROWS_WITH(find_model("dlrm-dcnv2", {.sequence_length = 10}), Catch::Contains("recommendation model"));
}
