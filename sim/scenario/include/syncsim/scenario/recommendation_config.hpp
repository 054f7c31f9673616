#pragma once
// A recommendation model's keys in the `model:` section (docs/recommendation.md):
//
//   model:
//     name: my-dlrm                       # or a catalog one: dlrm-mlperf, dlrm-dcnv2, dlrm-kaggle, recsys-100b
//     recommendation:                     # compute/recommendation_model.hpp's RecommendationShape
//       dense_features: 13
//       bottom_mlp: [512, 256, 128]
//       tables:
//         - {name: user, rows: 1e9, dim: 128, lookups: 1, zipf: 1.05}
//         - {name: item, rows: 2e8, dim: 128, lookups: 20, pooling: mean, touched_share: 0.3, repeat: 4}
//       interaction: dcn                  # dot (default) or dcn, with cross_layers (3) and cross_rank (0: full)
//       cross_rank: 512
//       top_mlp: [1024, 1024, 512, 256, 1]
//     embedding_sharding: auto            # auto | table_wise | row_wise | data_parallel, or per table:
//     embedding_sharding: {default: auto, user: row_wise, item_0: {type: column_wise, shards: 4},
//                          item_1: {type: table_wise, rank: 3}}
//     embedding_optimizer: rowwise_adagrad  # sgd | rowwise_adagrad | adagrad | adam
//
// `repeat: k` makes k tables NAME_0 .. NAME_k-1 (underscores, so that --set model.embedding_sharding.NAME_0=... can
// name one). A table named `default` cannot be named in embedding_sharding: the key is the others' default.
#include <optional>
#include <string>
#include <vector>

#include "syncsim/compute/recommendation_model.hpp"
#include "syncsim/scenario/located.hpp"
#include "syncsim/training/embedding_sharding.hpp"

namespace syncsim {

// One table's sharding as the scenario asks it: nullopt is `auto` (the planner's choice). A rank of -1 is left to
// the planner (table_wise without `rank`, column_wise with `shards` and no `ranks`).
using ShardingRequest = std::optional<TableSharding>;

struct EmbeddingShardingConfig {
  Located<ShardingRequest> all;                                          // `default`, or the scalar form; auto
  std::vector<std::pair<std::string, Located<ShardingRequest>>> tables;  // by table name, in the file's order
};

struct RecommendationConfig {
  std::optional<Located<RecommendationShape>> shape;  // model.recommendation; nullopt: a catalog model, if any
  EmbeddingShardingConfig sharding;
  Located<EmbeddingOptimizer> optimizer;
  bool given = false;  // any of the keys is written
};

}  // namespace syncsim
