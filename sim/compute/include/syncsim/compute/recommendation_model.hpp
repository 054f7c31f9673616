#pragma once
// A recommendation model (DLRM, Naumov et al. 2019; DCN-v2, Wang et al. 2021) as the compute model sees it: sparse
// features looked up in embedding tables, dense features through a bottom MLP, a feature interaction, a top MLP.
//
//   dense x (n_dense) ──bottom MLP──▶ d ─┐
//   table t: L_t ids ──gather, pool──▶ d ─┼─ interaction ──top MLP──▶ logit ── BCE loss
//   ...  (T tables)                      ─┘
//
// Per sample, by the rules every layer follows (model_spec.hpp):
//
//   embedding table t   params R_t x d; a gather of L_t rows of d and a pooled d written: moves L_t·d + d elements,
//                       FLOPs (L_t - 1)·d for sum pooling (+ d for mean); reads no whole weight (weight_elements_read
//                       0) and keeps nothing for backward but the ids (kind embedding: memory-bound)
//   linear n -> m       params n·m + m, FLOPs 2·n·m + m, saves its input; ReLU after every bottom layer and every top
//                       layer but the last
//   dot interaction     F = T + 1 vectors of d: the F x F Gram matrix (FLOPs 2·F²·d), its strict lower triangle
//                       F(F-1)/2 concatenated with the dense vector: the top MLP reads F(F-1)/2 + d (479 for the
//                       MLPerf DLRM's 27 features of 128)
//   dcn interaction     x0 = the F vectors concatenated (n = F·d); each cross layer x' = x0 ⊙ (W x + b) + x, W full
//                       (n² + n params) or low-rank U·Vᵀ (2·n·r + n params, FLOPs 4·n·r + 3·n); the top MLP reads n
//
// Which rows a batch touches (the sparse updates, parameter servers): `touched_share` of its lookups are distinct
// rows, or the lookups follow Zipf(s) over the rows (rank i drawn with probability i^-s / H(R, s)), or, with
// neither, uniformly. expected_unique_rows says how many distinct rows n lookups hit.
//
//   ModelSpec m = find_model("dlrm-dcnv2");                       // the MLPerf DLRM-DCNv2 (model_catalog.hpp)
//   RecommendationShape shape = *find_recommendation("dlrm-dcnv2");
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/compute/model_spec.hpp"

namespace syncsim {

enum class EmbeddingPooling { sum, mean };
enum class FeatureInteraction { dot, dcn };

struct EmbeddingTable {
  std::string name;
  std::int64_t rows = 0;
  std::int64_t dim = 0;
  std::int64_t lookups = 1;  // ids per sample (the pooling factor; MLPerf's multi-hot size)
  EmbeddingPooling pooling = EmbeddingPooling::sum;
  std::optional<double> touched_share = std::nullopt;  // (0, 1]: distinct rows per lookup of a batch
  std::optional<double> zipf = std::nullopt;           // > 0: the access distribution's exponent s
};

struct RecommendationShape {
  std::int64_t dense_features = 13;      // Criteo's 13 integer features
  std::vector<std::int64_t> bottom_mlp;  // output widths; the last is the embedding dimension
  std::vector<EmbeddingTable> tables;
  FeatureInteraction interaction = FeatureInteraction::dot;
  std::int64_t cross_layers = 3;      // dcn: cross layers
  std::int64_t cross_rank = 0;        // dcn: the low rank r of W = U·Vᵀ; 0: full-rank W
  std::vector<std::int64_t> top_mlp;  // output widths; the last is the logit (1)
};

// What is wrong with a shape: the field as the scenario's model.recommendation keys name it ("tables[2].rows",
// "bottom_mlp", "cross_rank"; tables need a name, positive rows, dim and lookups, one dimension for all, a share in
// (0, 1] or a Zipf exponent above 0, not both), and why. Counts past int64 are refused.
std::optional<ShapeProblem> check_recommendation(const RecommendationShape& shape);

// The layers in forward order: the bottom MLP, the tables (embedding.NAME), the interaction, the top MLP, the loss.
// Throws InputError with check_recommendation's message (key: its field) for a bad shape.
ModelSpec recommendation_model(std::string name, const RecommendationShape& shape);

// Parameters of the embedding tables alone, and per table.
std::int64_t embedding_params(const RecommendationShape& shape);

// Expected distinct rows that `lookups` ids drawn from `table`'s access distribution hit (see above): at most
// min(lookups, rows). Uniform: R (1 - (1 - 1/R)^n); Zipf: the sum of 1 - (1 - p_i)^n over the ranks, exact for the
// first 65,536 ranks and integrated over the tail; a share: share x n.
double expected_unique_rows(const EmbeddingTable& table, std::int64_t lookups);

// The chance that a lookup drawn from `table`'s access distribution reads a row that another batch of `lookups`
// ids touched: the sum over rows of p_i (1 - (1 - p_i)^n). Uniform (and a share): U / R with U the distinct rows
// above; Zipf: hot rows count by how often they are read, so it is far above U / R. Asynchronous tables: a read
// misses, on average, this times the other batches updated in between (sparse_exchange.hpp).
double read_touched_share(const EmbeddingTable& table, std::int64_t lookups);

// The share of lookups a GPU cache of the `cached_rows` hottest rows serves, the rest going to the table in host
// memory (TorchRec's FUSED_UVM_CACHING kernel: an LRU or LFU cache of rows in HBM over a UVM table, which for a
// stationary access distribution holds the most frequent rows): Zipf H(C, s) / H(R, s); uniform (and a touched
// share, which says nothing of the distribution) C / R. The input issue 46's host-memory tier needs; nothing
// consumes it yet.
double cache_hit_rate(const EmbeddingTable& table, std::int64_t cached_rows);

// The recommendation models of the catalog (model_catalog.hpp lists them beside the others), by canonical name or
// alias as find_model matches them; nullopt for any other name.
//
//   dlrm-mlperf   DLRM on Criteo 1TB as MLPerf Training v0.7-v2.1 ran it (facebookresearch/dlrm,
//                 bench/run_and_time.sh --max-ind-range=40000000): 26 one-hot tables of 128 capped at 40 M rows,
//                 bottom 13-512-256-128, dot, top 479-1024-1024-512-256-1                        24.0 B parameters
//   dlrm-dcnv2    DLRM-DCNv2 as MLPerf Training v3.0 onward runs it (mlcommons/training recommendation_v2/
//                 torchrec_dlrm): the 26 tables of 128 capped at 40 M, multi-hot 3,2,1,...,1, bottom 512-256-128,
//                 3 low-rank (512) cross layers, top 1024-1024-512-256-1                          26.2 B parameters
//   dlrm-kaggle   the DLRM paper's Criteo Kaggle benchmark (dlrm_s_criteo_kaggle.sh): 26 tables of 16, bottom
//                 13-512-256-64-16, dot, top 367-512-256-1                                        540 M parameters
//   recsys-100b   the seed's 100-billion-parameter model: dlrm-dcnv2 with its five 40 M-row tables uncapped to
//                 156.25 M rows each (docs/recommendation.md says why)                           100.5 B parameters
// `canonical`, when given, is set to the entry's canonical name.
std::optional<RecommendationShape> find_recommendation(std::string_view name, std::string_view* canonical = nullptr);
std::vector<std::string_view> recommendation_names();

std::string_view to_string(EmbeddingPooling pooling);
std::string_view to_string(FeatureInteraction interaction);

}  // namespace syncsim
