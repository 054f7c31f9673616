#pragma once
// The roofline's work of one layer at the scenario's batch, as the Chakra exports write it (num_ops, tensor_size):
// forward B x forward_flops operations and e x (weights read + B x activations moved) bytes, backward
// backward_factor times both; each divided by `parts` (a layout's tensor x context share).
#include <cstdint>
#include <utility>

#include "resolved_scenario.hpp"
#include "syncsim/chakra/ddp_workload.hpp"

namespace syncsim::run {

std::pair<chakra::NodeWork, chakra::NodeWork> chakra_layer_work(const ResolvedScenario& context, const Layer& layer,
                                                                std::int64_t parts);

}  // namespace syncsim::run
