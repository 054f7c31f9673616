// to_string for the scenario's enums, and the strategy/communication table (training_config.hpp).
#include "enum_names.hpp"

namespace syncsim {

using scenario_detail::name_of;

std::string_view to_string(StrategyKind strategy) {
  return name_of(scenario_detail::kStrategyNames, strategy);
}
std::string_view to_string(Communication communication) {
  return name_of(scenario_detail::kCommunicationNames, communication);
}
std::string_view to_string(ServerPlacement placement) {
  return name_of(scenario_detail::kPlacementNames, placement);
}
std::string_view to_string(TensorPartition partition) {
  return name_of(scenario_detail::kPartitionNames, partition);
}
std::string_view to_string(ServerHost host) {
  return name_of(scenario_detail::kHostNames, host);
}
std::string_view to_string(DenseExchange exchange) {
  return name_of(scenario_detail::kDenseExchangeNames, exchange);
}
std::string_view to_string(EmbeddingConsistency consistency) {
  return name_of(scenario_detail::kEmbeddingConsistencyNames, consistency);
}
std::string_view to_string(JitterKind distribution) {
  return name_of(scenario_detail::kJitterNames, distribution);
}

std::string_view to_string(KernelStyle style) {
  return name_of(scenario_detail::kKernelStyleNames, style);
}

std::string_view to_string(ShardingLevel level) {
  return name_of(scenario_detail::kShardingNames, level);
}
std::string_view to_string(PipelineSchedule schedule) {
  return name_of(scenario_detail::kScheduleNames, schedule);
}
std::string_view to_string(ActivationCheckpointing checkpointing) {
  return name_of(scenario_detail::kCheckpointingNames, checkpointing);
}

std::string_view to_string(ProxyProblem problem) {
  return name_of(scenario_detail::kProblemNames, problem);
}
std::string_view to_string(LrScaling scaling) {
  return name_of(scenario_detail::kLrScalingNames, scaling);
}

bool compatible(StrategyKind strategy, Communication communication) {
  switch (strategy) {
    case StrategyKind::sync:
      return true;
    case StrategyKind::async:
    case StrategyKind::ssp:
    case StrategyKind::hybrid:
      return communication == Communication::parameter_server;
    case StrategyKind::local_sgd:
      return communication == Communication::allreduce;
  }
  return false;
}

Communication default_communication(StrategyKind strategy) {
  return strategy == StrategyKind::sync || strategy == StrategyKind::local_sgd ? Communication::allreduce
                                                                               : Communication::parameter_server;
}

}  // namespace syncsim
