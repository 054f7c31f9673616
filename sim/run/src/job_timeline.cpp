#include "job_timeline.hpp"

#include <algorithm>
#include <cmath>

#include "syncsim/run/job_timeline.hpp"

namespace syncsim::run {

namespace {

namespace jc = job_category;

double cause_seconds(const GoodputSample& sample, std::string_view cause) {
  for (const auto& [name, seconds] : sample.seconds) {
    if (name == cause) return seconds;
  }
  return 0;
}

// The job's lane, filled end to end: each span starts where the last ended, so they tile [0, D].
class JobLane {
 public:
  explicit JobLane(std::vector<JobSpan>& spans) : spans_(spans) {}
  void add(std::string_view category, double duration, std::int64_t interruption, std::int64_t checkpoints = 0) {
    if (duration <= 0 && category != jc::failure) return;  // a failure is an instant; other empty spans say nothing
    spans_.push_back({category, now_, duration, interruption, checkpoints});
    now_ += duration;
  }

 private:
  std::vector<JobSpan>& spans_;
  double now_ = 0;
};

// An up period: the kept training, the lost progress before its failure, and the stall of its saves.
struct UpPeriod {
  double kept = 0;
  double lost = 0;
  double stall = 0;
  std::int64_t saves = 0;
};

std::vector<UpPeriod> up_periods(const GoodputInputs& in, const GoodputSample& sample) {
  const std::vector<SampledInterruption>& hits = sample.interruptions;
  const double kept = sample.kept_seconds;
  const double lost = cause_seconds(sample, "lost_progress");
  const double stall = cause_seconds(sample, "checkpoint_save");
  double drawn_lost = 0;
  for (const SampledInterruption& h : hits) drawn_lost += h.lost_seconds;
  // The model caps the lost progress at the training there was: every drawn loss shrinks alike.
  const double lost_scale = drawn_lost > 0 ? lost / drawn_lost : 0;
  std::vector<UpPeriod> periods(hits.size() + 1);
  double previous = 0;
  for (std::size_t p = 0; p < periods.size(); ++p) {
    const double at = p < hits.size() ? hits[p].at_seconds : in.duration_seconds;
    UpPeriod& u = periods[p];
    u.kept = kept * (at - previous) / in.duration_seconds;
    u.lost = p < hits.size() ? hits[p].lost_seconds * lost_scale : 0;
    u.stall = kept + lost > 0 ? stall * (u.kept + u.lost) / (kept + lost) : 0;
    if (u.stall > 0) u.saves = std::max<std::int64_t>(1, std::llround((u.kept + u.lost) / in.interval_seconds));
    previous = at;
  }
  return periods;
}

void draw_up(JobLane& lane, const UpPeriod& u, std::int64_t next, bool merged) {
  if (merged) {
    lane.add(jc::training, u.kept, -1, u.saves);
    lane.add(jc::checkpoint_save, u.stall, -1, u.saves);
  } else if (u.saves == 0) {
    lane.add(jc::training, u.kept, -1);
  } else {
    const auto n = static_cast<double>(u.saves);
    for (std::int64_t i = 0; i < u.saves; ++i) {
      lane.add(jc::training, u.kept / n, -1);
      lane.add(jc::checkpoint_save, u.stall / n, -1);
    }
  }
  lane.add(jc::lost_progress, u.lost, next);
}

// The recovery in the model's order of costs; `scale` < 1 when recoveries outlast the job (the model's scaling).
void draw_down(JobLane& lane, const GoodputInputs& in, const SampledInterruption& h, std::int64_t i, double scale) {
  lane.add(jc::failure, 0, i);
  lane.add(jc::detection, in.detection_seconds * scale, i);
  if (h.nodes_down > 0) {
    lane.add(h.swapped ? jc::spare_swap : jc::repair_wait, (h.swapped ? in.swap_seconds : in.repair_seconds) * scale,
             i);
  }
  lane.add(jc::restart, in.restart_seconds * scale, i);
  lane.add(jc::restore, in.restore_seconds * scale, i);
}

double down_seconds(const GoodputInputs& in, const std::vector<SampledInterruption>& hits) {
  double down = 0;
  for (const SampledInterruption& h : hits) {
    down += in.detection_seconds + in.restart_seconds + in.restore_seconds;
    if (h.nodes_down > 0) down += h.swapped ? in.swap_seconds : in.repair_seconds;
  }
  return down;
}

// Each save's upload runs beside training until it is written, or until the next save or failure cuts it short.
std::vector<JobSpan> uploads_of(const std::vector<JobSpan>& job, double upload, double duration) {
  std::vector<JobSpan> out;
  double barrier = duration;
  for (auto it = job.rbegin(); it != job.rend(); ++it) {
    if (it->category == jc::checkpoint_save) {
      const double start = it->start + it->duration;
      if (barrier > start) out.push_back({jc::checkpoint_upload, start, std::min(upload, barrier - start), -1, 0});
      barrier = it->start;
    } else if (it->category == jc::failure) {
      barrier = it->start;
    }
  }
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace

JobTimeline lay_out_job(const GoodputInputs& in, const GoodputSample& sample) {
  JobTimeline t;
  t.duration = in.duration_seconds;
  t.interruptions = sample.interruptions;
  const std::vector<UpPeriod> periods = up_periods(in, sample);
  std::int64_t saves = 0;
  for (const UpPeriod& u : periods) saves += u.saves;
  t.merged = saves > kMaxDrawnCheckpoints;
  const double down = down_seconds(in, sample.interruptions);
  const double scale = down > in.duration_seconds ? in.duration_seconds / down : 1;
  JobLane lane(t.job);
  for (std::size_t p = 0; p < periods.size(); ++p) {
    const auto i = static_cast<std::int64_t>(p);
    const bool last = p == sample.interruptions.size();
    draw_up(lane, periods[p], last ? -1 : i, t.merged);
    if (!last) draw_down(lane, in, sample.interruptions[p], i, scale);
  }
  if (in.upload_seconds > 0 && !t.merged) t.uploads = uploads_of(t.job, in.upload_seconds, in.duration_seconds);
  for (const JobSpan& s : t.job) {
    if (s.category != jc::failure || !t.interruptions[static_cast<std::size_t>(s.interruption)].swapped) continue;
    const double repair = std::min(in.repair_seconds, in.duration_seconds - s.start);
    if (repair > 0) t.spare_repairs.push_back({jc::spare_repair, s.start, repair, s.interruption, 0});
  }
  return t;
}

}  // namespace syncsim::run
