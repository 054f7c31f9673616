#pragma once
// The job timeline: the goodput model's first sample of the run's seed (goodput_model.hpp, sample_goodput(in, 0))
// laid out on the wall clock [0, D], from the sample's own draws and totals, so its spans sum to that sample's
// badput by cause by construction.
//
// The model is an accounting over the sample, not a clock: it draws the arrival times, and for each interruption
// its lost progress and its recovery; the checkpoint stalls are the share stall / (interval + stall) of the time up,
// and the lost progress is capped by the training. The layout keeps all of that and places it in time:
//
//   up period p (before interruption p, and one after the last)    down period of interruption p
//   |train|save|train|save| ... |lost progress|  FAILURE  |detection|swap or repair wait|restart|restore|
//
//   kept training of period p   K x (t_p - t_{p-1}) / D     the sample's kept training K, spread by arrival gaps
//   lost progress of period p   the interruption's drawn loss (scaled as the model caps the total)
//   saves of period p           S_total x (kept_p + lost_p) / (K + L): n_p = max(1, round((kept_p + lost_p) /
//                               interval)) saves of equal share, after equal pieces of the kept training
//   down                        detection, swap (spare) or repair wait, restart, restore: the model's costs
//
// so the failures keep their order and (up to the recoveries) their arrival gaps, and the spans tile [0, D].
// Bounding the output: with more than kMaxDrawnCheckpoints saves in all, each up period is drawn as one
// "training (N checkpoints)" span and one "checkpoint saves (N)" span (same sums, no uploads drawn).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "goodput_model.hpp"
#include "syncsim/trace/trace.hpp"

namespace syncsim::run {

inline constexpr std::int64_t kMaxDrawnCheckpoints = 5000;

struct JobSpan {
  std::string_view category;  // job_category::* (syncsim/run/job_timeline.hpp)
  double start = 0;           // wall-clock seconds
  double duration = 0;
  std::int64_t interruption = -1;  // the interruption it belongs to (0-based), or -1
  std::int64_t checkpoints = 0;    // saves a merged span stands for (0: not merged)
};

struct JobTimeline {
  double duration = 0;
  std::vector<JobSpan> job;            // tiles [0, D] in order; failures are zero-length spans in it
  std::vector<JobSpan> uploads;        // asynchronous saving's uploads, beside training
  std::vector<JobSpan> spare_repairs;  // swapped-out nodes in repair: interruption's index, duration
  std::vector<SampledInterruption> interruptions;
  bool merged = false;  // saves merged per up period (over kMaxDrawnCheckpoints)
};

JobTimeline lay_out_job(const GoodputInputs& in, const GoodputSample& sample);

// As a Chrome trace: track "job", "checkpoint upload" (asynchronous saving) and "spares N" (swapped-out nodes in
// repair, as many tracks as overlap). Spans wider than the picosecond clock (about 106 days) are not representable:
// the caller checks SimTime::fits_seconds(D) first.
trace::Trace job_timeline_trace(const JobTimeline& timeline, const GoodputInputs& in, std::string_view scenario,
                                std::uint64_t seed);

}  // namespace syncsim::run
