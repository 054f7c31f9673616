#pragma once
// Scenario: one validated simulation input, units resolved (the full schema is docs/scenarios.md).
//
//   Scenario s = load_scenario("scenario.yaml", {"training.iterations=5"});   // scenario_loader.hpp
//   s.training.bucket_size   // Bytes{25'000'000}
//   s.model.name             // Located<std::string>: the value, scenario.yaml:5:15 and "model.name"
//
// A Scenario is a plain value: copy it, change it, run it. Names the loader cannot check without the catalogs
// or the topology (GPU and model names, node names, ranks beyond `cluster.workers`) stay Located, so the stage
// that checks them reports the file position.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "syncsim/scenario/cluster_config.hpp"
#include "syncsim/scenario/convergence_config.hpp"
#include "syncsim/scenario/located.hpp"
#include "syncsim/scenario/model_config.hpp"
#include "syncsim/scenario/parallelism_config.hpp"
#include "syncsim/scenario/perturbation_config.hpp"
#include "syncsim/scenario/reliability_config.hpp"
#include "syncsim/scenario/training_config.hpp"

namespace syncsim {

struct Scenario {
  std::string source;  // the file (or the source name given to parse_scenario)
  std::string name;    // default: the source's file stem
  std::uint64_t seed = 0;
  ClusterConfig cluster;
  ModelConfig model;
  TrainingConfig training;
  ParallelismConfig parallelism;
  StragglerConfig stragglers;
  std::vector<LinkDegradation> degraded_links;
  std::vector<FaultConfig> faults;
  CheckpointConfig checkpoint;
  SimTime detection_timeout = SimTime::from_seconds(30);
  // Failures at rates over a long job, and the goodput they leave (docs/faults.md, "Goodput"); nullopt: none.
  std::optional<ReliabilityConfig> reliability;
  // The learning problem replayed under the simulated schedule; nullopt: throughput only.
  std::optional<ConvergenceConfig> convergence;
  // A calibration file from `syncsim calibrate`, relative paths resolved against the scenario's directory.
  std::optional<Located<std::string>> calibration;
  // strict_calibration: true beside it: a calibration fitted on another system (its domain,
  // calibration_domain.hpp) is an error rather than a warning.
  std::optional<Located<bool>> strict_calibration;
};

}  // namespace syncsim
