#pragma once
// The failure process a long job meets, for the goodput assessment (docs/faults.md, "Goodput"):
//
//   reliability:
//     failures: default            # or {gpu: 1/30000h, hbm: 1/60000h, nic: ..., switch: ..., host: ..., software: ...}
//     duration: 54d                # the wall-clock length of the job being assessed
//     spares: 8                    # hot spare nodes
//     swap_time: 0s                # beyond the restart: a failed node replaced by a spare
//     repair_time: 4h              # no spare left: the job waits this long for a node
//     samples: 1000                # sampled runs of the failure process (seeded by the scenario's seed)
//
// A rate is failures per component-hour: `1/30000h` (one in 30,000 hours), `2e-5/h`, or 0. `default` is the table
// derived from the Llama 3 paper's 54-day interruption count (run/src/failure_table.cpp). A map gives exactly the
// classes it names; the others do not fail.
#include <cstdint>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/sim_time.hpp"

namespace syncsim {

// Failures per component-hour of each class. Components: GPUs; HBM (one set of stacks per GPU); NICs; network
// switches (with their cables); hosts (nodes); software (per GPU: one process per rank).
struct FailureRates {
  double gpu = 0;
  double hbm = 0;
  double nic = 0;
  double network_switch = 0;
  double host = 0;
  double software = 0;
};

struct ReliabilityConfig {
  bool default_table = true;  // failures: default (rates then unused)
  FailureRates rates{};
  double duration_seconds = 0;                            // > 0; may pass the simulated clock's 106 days
  std::int64_t spares = 0;                                // hot spare nodes, >= 0
  SimTime swap_time = SimTime::zero();                    // the relaunch (checkpoint.restart_cost) goes to the spare
  SimTime repair_time = SimTime::from_seconds(4 * 3600);  // an assumption (docs/faults.md), not a measurement
  std::int64_t samples = 1000;                            // in [1, 100000]
  SourceLocation where{};                                 // the section
};

}  // namespace syncsim
