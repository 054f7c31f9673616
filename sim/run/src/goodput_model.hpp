#pragma once
// The goodput of a long job: its failure process sampled over the wall-clock duration D, each interruption's cost,
// the checkpoints' stalls, and what is left as productive time (docs/faults.md, "Goodput").
//
// Interruptions arrive as a Poisson process over wall time, each class at rate x components (the sum is the closed
// form Sigma rate x component-hours); a sample draws the arrivals by exponential gaps, seeded. Each costs
//
//   down      detection + restart (relaunch, NCCL init) + restore, and for one that takes nodes down the swap of
//             hot spares (swap_time) when enough are left, else the repair (repair_time); swapped-out nodes rejoin
//             the spares once repaired
//   lost      the training since the last completed checkpoint: x ~ U(0, interval); asynchronous saving completes
//             a checkpoint only after its upload w, so a failure in the first w of an interval loses x + interval
//
// Of the time up (D - sum down) a share stall / (interval + stall) goes to checkpoint stalls, and of the training
// left the lost progress and the straggler loss (its share of the iteration) are badput too:
//
//   productive = (up - checkpoint stalls - lost) x (1 - straggler loss / iteration)
//   ETTR       = productive / D
//
// Badput shares are of the GPU time paid for, D x (job GPUs + spare GPUs); with goodput they sum to 1.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace syncsim::run {

struct InterruptionSource {
  std::string name;
  double per_hour = 0;            // rate x components
  std::int64_t domain_nodes = 0;  // nodes one interruption takes down
  double domain_share = 1;        // of its interruptions, those that take them down
};

struct GoodputInputs {
  double duration_seconds = 0;
  double iteration_seconds = 0;
  double straggler_seconds = 0;  // per iteration, lost to stragglers
  std::vector<InterruptionSource> sources{};
  double detection_seconds = 0;
  double restart_seconds = 0;
  double restore_seconds = 0;
  double interval_seconds = 0;  // training time between checkpoints
  double stall_seconds = 0;
  double upload_seconds = 0;  // asynchronous saving's write beside training; 0 when synchronous
  std::int64_t job_gpus = 1;
  std::int64_t gpus_per_node = 1;
  std::int64_t spares = 0;  // hot spare nodes
  double swap_seconds = 0;
  double repair_seconds = 0;
  std::int64_t samples = 1;
  std::uint64_t seed = 0;
};

// Badput causes, in report order.
inline constexpr const char* kBadputCauses[] = {"checkpoint_save", "lost_progress", "detection", "restart",
                                                "repair_wait",     "spares_idle",   "stragglers"};

struct GoodputOutcome {
  double ettr = 0;  // mean
  double ettr_p10 = 0;
  double ettr_p90 = 0;
  double goodput = 0;     // mean
  double kept_share = 0;  // mean: of the wall time, the training kept (before the straggler loss)
  double interruptions_mean = 0;
  std::int64_t p10 = 0;
  std::int64_t p50 = 0;
  std::int64_t p90 = 0;
  std::vector<std::pair<std::string, double>> badput;  // kBadputCauses' order, mean shares
};

GoodputOutcome assess_goodput(const GoodputInputs& in);

// One interruption of a sampled run, as the sampler drew it.
struct SampledInterruption {
  double at_seconds = 0;        // its arrival in wall time, in [0, D)
  std::size_t source = 0;       // index into GoodputInputs::sources
  double lost_seconds = 0;      // the training since the last completed checkpoint, as drawn
  std::int64_t nodes_down = 0;  // the nodes it takes down; 0 when none
  bool swapped = false;         // those nodes replaced by hot spares; else the job waits for their repair
};

// One sample of assess_goodput, its interruptions and the job time each cause took (for the job timeline,
// job_timeline.hpp): the same draws and the same accounting as the report's sample `index`.
struct GoodputSample {
  std::vector<SampledInterruption> interruptions;
  std::vector<std::pair<std::string, double>> seconds;  // kBadputCauses' order, in job time (spares_idle: GPU time
                                                        // of the spares over the job's GPUs)
  double kept_seconds = 0;                              // the training kept: productive time with the stragglers' share
  double productive_seconds = 0;
};

GoodputSample sample_goodput(const GoodputInputs& in, std::int64_t index = 0);

// The p-quantile of sorted values by nearest rank: the ceil(p n)-th smallest.
template <typename T>
T nearest_rank(const std::vector<T>& sorted, double p);

}  // namespace syncsim::run
