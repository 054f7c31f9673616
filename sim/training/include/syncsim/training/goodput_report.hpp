#pragma once
// GoodputReport: what failures at their rates, checkpoints and spares leave of a long job (docs/faults.md,
// "Goodput"), and its report.json form. Filled by the run layer's goodput assessment (run/src/goodput_run.cpp)
// when the scenario has a `reliability:` section.
//
//   ettr      effective training time ratio: productive time / wall time, the mean over the sampled runs;
//             productive time is the iterations kept, at the engine's iteration time less its straggler loss
//   goodput   productive GPU time / the GPU time paid for (the job's GPUs and the hot spares', whole duration)
//   badput    per cause, its share of the GPU time paid for; with goodput they sum to 1
//
// Times are double seconds: a job's duration may pass the simulated clock's 106 days.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "syncsim/core/units.hpp"

namespace syncsim {

struct FailureClassReport {
  std::string name;               // gpu | hbm | nic | switch | host | software
  std::int64_t components = 0;    // in the job
  double rate_per_hour = 0;       // per component-hour
  double expected = 0;            // rate x components x duration hours
  std::int64_t domain_nodes = 0;  // nodes one failure takes down (0: none, the job restarts where it was)
};

struct GoodputReport {
  double duration_seconds = 0;
  std::int64_t samples = 0;
  double ettr = 0;  // mean over the samples
  double ettr_p10 = 0;
  double ettr_p90 = 0;
  double goodput = 0;
  struct Interruptions {
    double expected = 0;  // the closed form, sum of rate x component-hours
    double sampled_mean = 0;
    std::int64_t p10 = 0;
    std::int64_t p50 = 0;
    std::int64_t p90 = 0;
  } interruptions{};
  double mtbf_seconds = 0;                             // duration / expected interruptions
  std::vector<std::pair<std::string, double>> badput;  // cause, share of the paid GPU time; fixed order
  std::vector<FailureClassReport> classes;
  // Checkpoints: the state saved, per rank and in all; what a save stalls training for and its whole write; the
  // restore; the interval used (checkpoint.interval, else the optimum) and Young's and Daly's optima.
  Bytes checkpoint_bytes{};
  Bytes checkpoint_bytes_per_rank{};
  bool async = false;
  double checkpoint_stall_seconds = 0;
  double checkpoint_write_seconds = 0;
  double restore_seconds = 0;
  double checkpoint_interval_seconds = 0;
  double checkpoint_interval_optimal_seconds = 0;  // Daly's higher-order form
  double checkpoint_interval_young_seconds = 0;
  double iteration_seconds = 0;  // the engine's, that the assessment ran at
  std::int64_t spares = 0;
};

nlohmann::ordered_json goodput_json(const GoodputReport& g);

}  // namespace syncsim
