#include "goodput_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/rng.hpp"

namespace syncsim::run {

namespace {

constexpr std::size_t kCauses = std::size(kBadputCauses);
enum Cause : std::size_t { checkpoint_save, lost_progress, detection, restart, repair_wait, spares_idle, stragglers };

// One sampled run: its interruptions and the job time each cause took, in seconds.
struct SampledRun {
  std::int64_t interruptions = 0;
  std::array<double, kCauses> seconds{};
  double productive = 0;
  double kept = 0;  // the training kept: productive with the stragglers' share
};

// The hot spares: how many are free, and when the nodes swapped out rejoin them repaired.
class SparePool {
 public:
  SparePool(std::int64_t spares, double repair) : free_(spares), repair_(repair) {}

  // Whether `nodes` spares could be swapped in at `t` (taken if so).
  bool take(std::int64_t nodes, double t) {
    while (!returns_.empty() && returns_.front() <= t) {
      ++free_;
      returns_.pop_front();
    }
    if (nodes > free_) return false;
    free_ -= nodes;
    for (std::int64_t i = 0; i < nodes; ++i) returns_.push_back(t + repair_);
    return true;
  }

 private:
  std::int64_t free_;
  double repair_;
  std::deque<double> returns_;  // in time order: every swap adds the same repair time
};

// With `record`, each interruption as drawn is appended to it: the timeline's events come from these very draws.
SampledRun sample_run(const GoodputInputs& in, Rng& rng, double total_per_second,
                      std::vector<SampledInterruption>* record) {
  SampledRun run;
  SparePool spares(in.spares, in.repair_seconds);
  double lost = 0;
  double down = 0;
  const double gap = total_per_second > 0 ? 1 / total_per_second : 0;
  for (double t = gap > 0 ? rng.exponential(gap) : in.duration_seconds; t < in.duration_seconds;
       t += rng.exponential(gap)) {
    ++run.interruptions;
    // Which class, by its share of the rate.
    double pick = rng.uniform() * total_per_second * 3600;
    const InterruptionSource* source = &in.sources.back();
    for (const InterruptionSource& s : in.sources) {
      if (pick < s.per_hour) {
        source = &s;
        break;
      }
      pick -= s.per_hour;
    }
    const double phase = rng.uniform() * in.interval_seconds;
    const double lost_here = phase + (phase < in.upload_seconds ? in.interval_seconds : 0);
    lost += lost_here;
    run.seconds[detection] += in.detection_seconds;
    run.seconds[restart] += in.restart_seconds + in.restore_seconds;
    down += in.detection_seconds + in.restart_seconds + in.restore_seconds;
    const bool takes_nodes = source->domain_nodes > 0 && rng.uniform() < source->domain_share;
    if (takes_nodes) {
      const bool swapped = spares.take(source->domain_nodes, t);
      (swapped ? run.seconds[restart] : run.seconds[repair_wait]) += swapped ? in.swap_seconds : in.repair_seconds;
      down += swapped ? in.swap_seconds : in.repair_seconds;
      if (record)
        record->push_back(
            {t, static_cast<std::size_t>(source - in.sources.data()), lost_here, source->domain_nodes, swapped});
    } else if (record) {
      record->push_back({t, static_cast<std::size_t>(source - in.sources.data()), lost_here, 0, false});
    }
  }
  // Recoveries longer than the job itself: the job never trains, and the down time is what it spent.
  if (down > in.duration_seconds) {
    for (std::size_t c : {detection, restart, repair_wait}) run.seconds[c] *= in.duration_seconds / down;
    return run;
  }
  const double up = in.duration_seconds - down;
  run.seconds[checkpoint_save] = up * in.stall_seconds / (in.interval_seconds + in.stall_seconds);
  const double training = up - run.seconds[checkpoint_save];
  run.seconds[lost_progress] = std::min(training, lost);
  run.kept = training - run.seconds[lost_progress];
  run.seconds[stragglers] = in.iteration_seconds > 0 ? run.kept * in.straggler_seconds / in.iteration_seconds : 0;
  run.productive = run.kept - run.seconds[stragglers];
  return run;
}

double per_second(const GoodputInputs& in) {
  double per_hour = 0;
  for (const InterruptionSource& s : in.sources) per_hour += s.per_hour;
  return per_hour / 3600;
}

// Sample `index` of the seed: each its own stream, so one sample is drawn alone exactly as among all.
SampledRun sample_at(const GoodputInputs& in, std::int64_t index, std::vector<SampledInterruption>* record) {
  Rng stream = Rng(in.seed).fork(static_cast<std::uint64_t>(index));
  SampledRun run = sample_run(in, stream, per_second(in), record);
  // In job time: the spares' GPU time over the job's GPUs.
  run.seconds[spares_idle] =
      in.duration_seconds * static_cast<double>(in.spares * in.gpus_per_node) / static_cast<double>(in.job_gpus);
  return run;
}

}  // namespace

template <typename T>
T nearest_rank(const std::vector<T>& sorted, double p) {
  const auto n = static_cast<double>(sorted.size());
  const auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(p * n)));
  return sorted[std::min(sorted.size(), rank) - 1];
}
template std::int64_t nearest_rank(const std::vector<std::int64_t>&, double);
template double nearest_rank(const std::vector<double>&, double);

GoodputOutcome assess_goodput(const GoodputInputs& in) {
  SYNCSIM_INVARIANT(in.duration_seconds > 0 && in.interval_seconds > 0 && in.samples > 0 && !in.sources.empty(),
                    "goodput needs a duration, a checkpoint interval, samples and a failure source");
  const double spare_gpus = static_cast<double>(in.spares * in.gpus_per_node);
  const double job = static_cast<double>(in.job_gpus);
  const double paid = in.duration_seconds * (job + spare_gpus);
  GoodputOutcome out;
  std::vector<std::int64_t> counts;
  std::vector<double> ettrs;
  std::array<double, kCauses> badput{};
  for (std::int64_t i = 0; i < in.samples; ++i) {
    const SampledRun run = sample_at(in, i, nullptr);
    counts.push_back(run.interruptions);
    ettrs.push_back(run.productive / in.duration_seconds);
    out.kept_share += run.kept / in.duration_seconds;
    out.goodput += run.productive * job / paid;
    for (std::size_t c = 0; c < kCauses; ++c) badput[c] += run.seconds[c] * job / paid;
  }
  const auto n = static_cast<double>(in.samples);
  std::sort(counts.begin(), counts.end());
  std::sort(ettrs.begin(), ettrs.end());
  for (const std::int64_t c : counts) out.interruptions_mean += static_cast<double>(c) / n;
  for (const double e : ettrs) out.ettr += e / n;
  out.goodput /= n;
  out.kept_share /= n;
  out.p10 = nearest_rank(counts, 0.1);
  out.p50 = nearest_rank(counts, 0.5);
  out.p90 = nearest_rank(counts, 0.9);
  out.ettr_p10 = nearest_rank(ettrs, 0.1);
  out.ettr_p90 = nearest_rank(ettrs, 0.9);
  for (std::size_t c = 0; c < kCauses; ++c) out.badput.emplace_back(kBadputCauses[c], badput[c] / n);
  return out;
}

GoodputSample sample_goodput(const GoodputInputs& in, std::int64_t index) {
  SYNCSIM_INVARIANT(in.duration_seconds > 0 && in.interval_seconds > 0 && !in.sources.empty(),
                    "a goodput sample needs a duration, a checkpoint interval and a failure source");
  GoodputSample out;
  const SampledRun run = sample_at(in, index, &out.interruptions);
  for (std::size_t c = 0; c < kCauses; ++c) out.seconds.emplace_back(kBadputCauses[c], run.seconds[c]);
  out.kept_seconds = run.kept;
  out.productive_seconds = run.productive;
  return out;
}

}  // namespace syncsim::run
