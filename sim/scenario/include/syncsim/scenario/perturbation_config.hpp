#pragma once
// What goes wrong during a run: stragglers, degraded links, failures, and how training recovers.
//
//   stragglers:
//     jitter: {distribution: lognormal, sigma: 0.05}   # per worker, per iteration compute-time multiplier
//     slow: [{rank: 3, factor: 1.5}]                    # persistently slower ranks
//   degraded_links:
//     - {between: [nic3, leaf0], factor: 0.25, from: 1s, until: 3s}   # node names as `syncsim topo` prints them
//   faults:
//     - {at: 2s, kind: worker_down, rank: 5, policy: restart_from_checkpoint}
//     - {at: 3s, kind: link_down, between: [nic2, leaf0], policy: elastic}
//   checkpoint: {interval: 100, restart_cost: 30s}     # interval: iterations (plain number) or a time
//               # with reliability: also storage_bandwidth: 2TB/s, storage_bandwidth_per_node: 50GB/s, async: true
//   detection_timeout: 30s
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/core/sim_time.hpp"
#include "syncsim/core/units.hpp"
#include "syncsim/scenario/located.hpp"
#include "syncsim/training/faults.hpp"
#include "syncsim/training/straggler_model.hpp"

namespace syncsim {

std::string_view to_string(JitterKind distribution);  // the straggler model's (straggler_model.hpp)

struct JitterConfig {
  JitterKind distribution = JitterKind::none;
  // lognormal: the multiplier is exp(N(0, sigma)), sigma in [0, 1]; normal: 1 + N(0, sigma), sigma in [0, 0.5]
  // (wider spreads are refused rather than clamped).
  double sigma = 0;
};

struct SlowRank {
  Located<std::int64_t> rank;
  double factor = 1;  // compute time multiplier, > 0 (1.5: 50% slower)
};

struct StragglerConfig {
  JitterConfig jitter;
  std::vector<SlowRank> slow;  // distinct ranks
};

// The physical link(s) between two topology nodes, both directions. The names are checked by the simulation,
// which has the topology.
struct LinkEnds {
  Located<std::string> a;
  Located<std::string> b;
};

struct LinkDegradation {
  LinkEnds between;
  double factor = 1;             // remaining fraction of the bandwidth, in [1e-6, 1]
  SimTime from;                  // >= 0
  std::optional<SimTime> until;  // > from; nullopt: to the end of the run
  SourceLocation where;          // the entry
  std::string key;               // "degraded_links[0]"
};

// Two worker_down faults of one rank at one instant are refused (at the second). A fault that falls in another's
// recovery takes effect when training resumes; one after the run's end is an error once the run is simulated.
struct FaultConfig {
  SimTime at;  // >= 0
  FaultKind kind = FaultKind::worker_down;
  std::optional<Located<std::int64_t>> rank;  // worker_down
  std::optional<LinkEnds> between;            // link_down
  // Defaulted from the strategy: restart_from_checkpoint for sync, local_sgd and hybrid; continue for async, ssp.
  Located<FaultPolicy> policy;
  SourceLocation where;
  std::string key;  // "faults[0]"
};

struct CheckpointConfig {
  // At most one is set; neither: the only checkpoint is the initial state (a restart loses all work).
  std::optional<std::int64_t> every_iterations;  // >= 1
  std::optional<SimTime> every;                  // > 0
  SimTime restart_cost;                          // >= 0, paid by every worker on restart
  // The goodput assessment's (reliability:): where checkpoints are written, aggregate and per node (nullopt: the
  // documented defaults, docs/faults.md), and whether saving runs beside training (only the device-to-host copy
  // stalls it) or stops it for the whole write.
  std::optional<Bandwidth> storage_bandwidth;
  std::optional<Bandwidth> storage_bandwidth_per_node;
  bool async = false;
};

}  // namespace syncsim
