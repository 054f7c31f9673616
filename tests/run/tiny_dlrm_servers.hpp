#pragma once
// The small recommendation model with its tables on one parameter server that recommendation_servers_test.cpp and
// recommendation_hybrid_test.cpp run: four tables of 100,000 rows of 16, one id per sample, every lookup its own
// row (touched share 1); 32 samples per GPU on 4 GPUs in fp32; one dedicated CPU server behind the switch.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::test {

inline constexpr const char* kServersScenario = R"(
name: tiny-dlrm-ps
cluster: {gpu: A100-SXM4-80GB, topology: "switch:n=4,bw=100Gbps,lat=5us"}
model:
  name: tiny-dlrm-ps
  recommendation:
    bottom_mlp: [64, 16]
    tables: [{name: t, rows: 100000, dim: 16, touched_share: 1, repeat: 4}]
    top_mlp: [64, 1]
  batch_per_gpu: 32
training:
  strategy: sync
  communication: parameter_server
  parameter_servers: {count: 1, host: cpu}
  iterations: 3
)";

inline Scenario servers_scenario(const std::vector<std::string>& overrides = {}) {
  return parse_scenario(kServersScenario, "tiny-ps.yaml", overrides);
}

// The report's communication group `name` (data, embedding).
inline const GroupCommunication& group(const TrainingReport& r, const std::string& name) {
  for (const GroupCommunication& g : r.group_communication) {
    if (g.group == name) return g;
  }
  FAIL("no group " << name);
  return r.group_communication.front();
}

}  // namespace syncsim::test
