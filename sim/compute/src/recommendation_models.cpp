// The catalog's recommendation models (recommendation_model.hpp lists them with their sources).
#include <fmt/format.h>

#include <array>

#include "model_name.hpp"
#include "syncsim/compute/recommendation_model.hpp"

namespace syncsim {

namespace {

// Criteo 1TB's 26 categorical features with the 40 M-row cap MLPerf applies (mlcommons/training
// recommendation_v2/torchrec_dlrm, --num_embeddings_per_feature) and DLRM-DCNv2's multi-hot sizes (--multi_hot_sizes).
constexpr std::array<std::int64_t, 26> kCriteo1TbCapped = {
    40'000'000, 39'060,     17'295,     7'424,      20'265,  3,      7'122, 1'543, 63,
    40'000'000, 3'067'956,  405'282,    10,         2'209,   11'938, 155,   4,     976,
    14,         40'000'000, 40'000'000, 40'000'000, 590'152, 12'973, 108,   36};
constexpr std::array<std::int64_t, 26> kDcnV2MultiHot = {3, 2, 1, 2, 6, 1, 1,  1,   1,  7,  3, 8, 1,
                                                         6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1};
// MLPerf v0.7-v2.1's DLRM (facebookresearch/dlrm, --max-ind-range=40000000): the rows the 40 M hash left.
constexpr std::array<std::int64_t, 26> kCriteo1TbHashed = {
    39'884'406, 39'043,     17'289,     7'420,      20'263,  3,      7'120, 1'543, 63,
    38'532'951, 2'953'546,  403'346,    10,         2'208,   11'938, 155,   4,     976,
    14,         39'979'771, 25'641'295, 39'664'984, 585'935, 12'972, 108,   36};
// Criteo Kaggle (Display Advertising Challenge) as the DLRM paper's benchmark counts it (dlrm_data_pytorch.py).
constexpr std::array<std::int64_t, 26> kCriteoKaggle = {
    1'460, 583,    10'131'227, 2'202'608, 305,   24,    12'517, 633,       3,  93'145, 5'683,   8'351'593, 3'194,
    27,    14'992, 5'461'306,  10,        5'652, 2'173, 4,      7'046'547, 18, 15,     286'181, 105,       142'572};
// The seed's model: dlrm-dcnv2's five capped tables grown until they alone hold 100 B parameters (5 x 156.25 M x 128).
constexpr std::int64_t kSeedUncappedRows = 156'250'000;

std::vector<EmbeddingTable> tables(const std::array<std::int64_t, 26>& rows, std::int64_t dim,
                                   const std::array<std::int64_t, 26>* lookups = nullptr) {
  std::vector<EmbeddingTable> out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out.push_back({.name = fmt::format("t{}", i), .rows = rows[i], .dim = dim, .lookups = lookups ? (*lookups)[i] : 1});
  }
  return out;
}

RecommendationShape dcnv2() {
  return {.dense_features = 13,
          .bottom_mlp = {512, 256, 128},
          .tables = tables(kCriteo1TbCapped, 128, &kDcnV2MultiHot),
          .interaction = FeatureInteraction::dcn,
          .cross_layers = 3,
          .cross_rank = 512,
          .top_mlp = {1024, 1024, 512, 256, 1}};
}

struct RecommendationEntry {
  std::string_view name;
  std::vector<std::string_view> aliases;
  RecommendationShape (*build)();
};

const std::vector<RecommendationEntry>& entries() {
  static const std::vector<RecommendationEntry> e = {
      {"dlrm-mlperf",
       {"dlrm", "dlrm-terabyte", "dlrm-criteo-1tb"},
       [] {
         return RecommendationShape{.bottom_mlp = {512, 256, 128},
                                    .tables = tables(kCriteo1TbHashed, 128),
                                    .top_mlp = {1024, 1024, 512, 256, 1}};
       }},
      {"dlrm-dcnv2", {"dlrm-v2", "dlrmv2", "dlrm-dcn"}, dcnv2},
      {"dlrm-kaggle",
       {"dlrm-criteo-kaggle"},
       [] {
         return RecommendationShape{
             .bottom_mlp = {512, 256, 64, 16}, .tables = tables(kCriteoKaggle, 16), .top_mlp = {512, 256, 1}};
       }},
      {"recsys-100b",
       {"recommendation-100b", "dlrm-100b"},
       [] {
         RecommendationShape s = dcnv2();
         for (EmbeddingTable& t : s.tables) {
           if (t.rows == 40'000'000) t.rows = kSeedUncappedRows;
         }
         return s;
       }},
  };
  return e;
}

using compute_detail::normalize_model_name;

}  // namespace

std::optional<RecommendationShape> find_recommendation(std::string_view name, std::string_view* canonical) {
  const std::string wanted = normalize_model_name(name);
  for (const RecommendationEntry& entry : entries()) {
    bool match = normalize_model_name(entry.name) == wanted;
    for (std::string_view alias : entry.aliases) match = match || normalize_model_name(alias) == wanted;
    if (!match) continue;
    if (canonical != nullptr) *canonical = entry.name;
    return entry.build();
  }
  return std::nullopt;
}

std::vector<std::string_view> recommendation_names() {
  std::vector<std::string_view> names;
  for (const RecommendationEntry& entry : entries()) names.push_back(entry.name);
  return names;
}

}  // namespace syncsim
