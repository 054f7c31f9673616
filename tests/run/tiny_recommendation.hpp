#pragma once
// The small recommendation scenario the run tests share (recommendation_run_test.cpp, recommendation_tiers_test.cpp):
// Four tables of 16 on 4 GPUs, one id per sample each; 32 samples per GPU in fp32.
inline constexpr const char* kRecommendationScenario = R"(
name: tiny-dlrm
cluster: {gpu: A100-SXM4-80GB, topology: "switch:n=4,bw=100Gbps,lat=5us"}
model:
  name: tiny-dlrm
  recommendation:
    bottom_mlp: [64, 16]
    tables: [{name: t, rows: 100000, dim: 16, repeat: 4}]
    top_mlp: [64, 1]
  embedding_sharding: {t_0: {type: table_wise, rank: 0}, t_1: {type: table_wise, rank: 1},
                       t_2: {type: table_wise, rank: 2}, t_3: {type: table_wise, rank: 3}}
  batch_per_gpu: 32
training: {strategy: sync, iterations: 3}
)";
