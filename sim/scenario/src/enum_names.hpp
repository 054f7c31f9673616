#pragma once
// The names of the scenario's enumerated values, one table each: read_* parse with them, to_yaml and to_string
// print with them, so the two cannot drift apart.
#include <array>
#include <optional>
#include <string_view>
#include <utility>

#include "syncsim/collectives/algorithm.hpp"
#include "syncsim/scenario/scenario.hpp"

namespace syncsim::scenario_detail {

template <typename E, std::size_t N>
using NameTable = std::array<std::pair<std::string_view, E>, N>;

inline constexpr NameTable<StrategyKind, 5> kStrategyNames{{{"sync", StrategyKind::sync},
                                                            {"async", StrategyKind::async},
                                                            {"ssp", StrategyKind::ssp},
                                                            {"local_sgd", StrategyKind::local_sgd},
                                                            {"hybrid", StrategyKind::hybrid}}};
inline constexpr NameTable<Communication, 2> kCommunicationNames{
    {{"allreduce", Communication::allreduce}, {"parameter_server", Communication::parameter_server}}};
inline constexpr NameTable<ServerPlacement, 2> kPlacementNames{
    {{"dedicated", ServerPlacement::dedicated}, {"colocated", ServerPlacement::colocated}}};
inline constexpr NameTable<ServerHost, 2> kHostNames{{{"gpu", ServerHost::gpu}, {"cpu", ServerHost::cpu}}};
inline constexpr NameTable<DenseExchange, 2> kDenseExchangeNames{
    {{"allreduce", DenseExchange::allreduce}, {"servers", DenseExchange::servers}}};
inline constexpr NameTable<EmbeddingConsistency, 2> kEmbeddingConsistencyNames{
    {{"sync", EmbeddingConsistency::sync}, {"async", EmbeddingConsistency::async}}};
inline constexpr NameTable<TensorPartition, 3> kPartitionNames{{{"even", TensorPartition::even},
                                                                {"round_robin", TensorPartition::round_robin},
                                                                {"greedy", TensorPartition::greedy}}};
// The collectives' names (algorithm.hpp) and two that are no one algorithm: auto and best are nullopt
// (any_algorithm tells them apart).
inline constexpr NameTable<std::optional<Algorithm>, kAlgorithmNames.size() + 2> kAlgorithmChoices = [] {
  NameTable<std::optional<Algorithm>, kAlgorithmNames.size() + 2> table{};
  std::size_t i = 0;
  for (const auto& [name, algorithm] : kAlgorithmNames) table[i++] = {name, algorithm};
  table[i++] = {"auto", std::nullopt};
  table[i] = {"best", std::nullopt};
  return table;
}();
inline constexpr NameTable<LatencySource, 3> kLatencyNames{
    {{"nccl", LatencySource::nccl}, {"physical", LatencySource::physical}, {"calibrated", LatencySource::calibrated}}};
inline constexpr NameTable<std::optional<Protocol>, 4> kProtocolNames{
    {{"auto", std::nullopt}, {"ll", Protocol::ll}, {"ll128", Protocol::ll128}, {"simple", Protocol::simple}}};
inline constexpr NameTable<JitterKind, 3> kJitterNames{
    {{"none", JitterKind::none}, {"lognormal", JitterKind::lognormal}, {"normal", JitterKind::normal}}};
// FaultKind and FaultPolicy: the training layer's tables (syncsim/training/faults.hpp), which the report prints
// with too.

inline constexpr NameTable<ProxyProblem, 2> kProblemNames{
    {{"logistic", ProxyProblem::logistic}, {"mlp", ProxyProblem::mlp}}};
inline constexpr NameTable<LrScaling, 3> kLrScalingNames{
    {{"none", LrScaling::none}, {"linear", LrScaling::linear}, {"sqrt", LrScaling::sqrt}}};

inline constexpr NameTable<ShardingLevel, 4> kShardingNames{{{"none", ShardingLevel::none},
                                                             {"optimizer", ShardingLevel::optimizer},
                                                             {"gradients", ShardingLevel::gradients},
                                                             {"full", ShardingLevel::full}}};
inline constexpr NameTable<PipelineSchedule, 3> kScheduleNames{{{"1f1b", PipelineSchedule::one_f_one_b},
                                                                {"interleaved", PipelineSchedule::interleaved},
                                                                {"gpipe", PipelineSchedule::gpipe}}};
inline constexpr NameTable<ActivationCheckpointing, 4> kCheckpointingNames{
    {{"none", ActivationCheckpointing::none},
     {"selective", ActivationCheckpointing::selective},
     {"selective_op", ActivationCheckpointing::selective_op},
     {"full", ActivationCheckpointing::full}}};

inline constexpr NameTable<Precision, 8> kPrecisionNames{{{"fp32", Precision::fp32},
                                                          {"tf32", Precision::tf32},
                                                          {"fp16", Precision::fp16},
                                                          {"bf16", Precision::bf16},
                                                          {"fp8", Precision::fp8},
                                                          {"mxfp8", Precision::mxfp8},
                                                          {"nvfp4", Precision::nvfp4},
                                                          {"mxfp4", Precision::mxfp4}}};
inline constexpr NameTable<LayerKind, 6> kLayerKindNames{{{"other", LayerKind::other},
                                                          {"gemm", LayerKind::gemm},
                                                          {"gemm_kept", LayerKind::gemm_kept},
                                                          {"attention", LayerKind::attention},
                                                          {"convolution", LayerKind::convolution},
                                                          {"embedding", LayerKind::embedding}}};
inline constexpr NameTable<KernelStyle, 3> kKernelStyleNames{
    {{"fused", KernelStyle::fused}, {"eager", KernelStyle::eager}, {"compiled", KernelStyle::compiled}}};
inline constexpr NameTable<AttentionKernel, 2> kAttentionNames{
    {{"flash", AttentionKernel::flash}, {"eager", AttentionKernel::eager}}};
inline constexpr NameTable<MlpActivation, 3> kMlpActivationNames{
    {{"swiglu", MlpActivation::swiglu}, {"gelu", MlpActivation::gelu}, {"squared_relu", MlpActivation::squared_relu}}};
inline constexpr NameTable<DecoderNorm, 2> kDecoderNormNames{
    {{"rmsnorm", DecoderNorm::rmsnorm}, {"layernorm", DecoderNorm::layernorm}}};
inline constexpr NameTable<PositionEncoding, 2> kPositionEncodingNames{
    {{"rotary", PositionEncoding::rotary}, {"learned", PositionEncoding::learned}}};
// adamw keeps the same state and moves the same bytes as adam (optimizer.hpp); it is written back as adam.
inline constexpr NameTable<Optimizer, 4> kOptimizerNames{{{"sgd", Optimizer::sgd},
                                                          {"momentum", Optimizer::momentum},
                                                          {"adam", Optimizer::adam},
                                                          {"adamw", Optimizer::adam}}};

// Transformer Engine's userbuffers layers and methods (userbuffers_config.hpp), in UbLayer's order.
inline constexpr NameTable<UbLayer, kUbLayers> kUbLayerNames{{{"qkv_fprop", UbLayer::qkv_fprop},
                                                              {"proj_fprop", UbLayer::proj_fprop},
                                                              {"fc1_fprop", UbLayer::fc1_fprop},
                                                              {"fc2_fprop", UbLayer::fc2_fprop},
                                                              {"qkv_dgrad", UbLayer::qkv_dgrad},
                                                              {"qkv_wgrad", UbLayer::qkv_wgrad},
                                                              {"proj_dgrad", UbLayer::proj_dgrad},
                                                              {"fc1_dgrad", UbLayer::fc1_dgrad},
                                                              {"fc1_wgrad", UbLayer::fc1_wgrad},
                                                              {"fc2_dgrad", UbLayer::fc2_dgrad}}};
inline constexpr NameTable<UbMethod, 3> kUbMethodNames{
    {{"ring_exchange", UbMethod::ring_exchange}, {"pipeline", UbMethod::pipeline}, {"bulk", UbMethod::bulk}}};

template <typename E, std::size_t N>
std::string_view name_of(const NameTable<E, N>& table, E value) {
  for (const auto& [name, candidate] : table) {
    if (candidate == value) return name;
  }
  return "?";
}

}  // namespace syncsim::scenario_detail
