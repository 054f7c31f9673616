#pragma once
// Transformer Engine's userbuffers names (userbuffers_config.hpp), one table each: read_userbuffers parses with
// them and to_string and to_flow_yaml print with them.
#include <array>
#include <string_view>
#include <utility>

#include "syncsim/scenario/userbuffers_config.hpp"

namespace syncsim::scenario_detail {

// In UbLayer's order: to_string indexes it.
inline constexpr std::array<std::pair<std::string_view, UbLayer>, kUbLayers> kUbLayerNames{
    {{"qkv_fprop", UbLayer::qkv_fprop},
     {"proj_fprop", UbLayer::proj_fprop},
     {"fc1_fprop", UbLayer::fc1_fprop},
     {"fc2_fprop", UbLayer::fc2_fprop},
     {"qkv_dgrad", UbLayer::qkv_dgrad},
     {"qkv_wgrad", UbLayer::qkv_wgrad},
     {"proj_dgrad", UbLayer::proj_dgrad},
     {"fc1_dgrad", UbLayer::fc1_dgrad},
     {"fc1_wgrad", UbLayer::fc1_wgrad},
     {"fc2_dgrad", UbLayer::fc2_dgrad}}};
// In UbMethod's order.
inline constexpr std::array<std::pair<std::string_view, UbMethod>, 3> kUbMethodNames{
    {{"ring_exchange", UbMethod::ring_exchange}, {"pipeline", UbMethod::pipeline}, {"bulk", UbMethod::bulk}}};

}  // namespace syncsim::scenario_detail
