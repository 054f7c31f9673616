// The job timeline as a Chrome trace (job_timeline.hpp): one track for the job, one for asynchronous uploads, and
// the spares' repairs on as many tracks as overlap. Times are rounded to picoseconds at each span's two ends, so
// spans that meet in seconds meet in the file.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "job_timeline.hpp"
#include "syncsim/run/job_timeline.hpp"

namespace syncsim::run {

namespace {

namespace jc = job_category;

SimTime job_time(double seconds) {
  return SimTime::from_ps(static_cast<std::int64_t>(std::llround(seconds * 1e12)));
}

// What the span is, for the tooltip and Perfetto's slice name.
std::string span_name(const JobSpan& s, const JobTimeline& t, const GoodputInputs& in) {
  const std::int64_t n = s.interruption + 1;  // failures counted from 1 for readers
  const auto cls = [&] {
    return s.interruption >= 0 ? in.sources[t.interruptions[static_cast<std::size_t>(s.interruption)].source].name
                               : std::string();
  };
  if (s.category == jc::training) {
    return s.checkpoints > 0 ? fmt::format("training ({} checkpoints)", s.checkpoints) : "training";
  }
  if (s.category == jc::checkpoint_save) {
    return s.checkpoints > 0 ? fmt::format("checkpoint saves ({})", s.checkpoints) : "checkpoint save";
  }
  if (s.category == jc::checkpoint_upload) return "checkpoint upload";
  if (s.category == jc::failure) {
    const SampledInterruption& h = t.interruptions[static_cast<std::size_t>(s.interruption)];
    return h.nodes_down > 0 ? fmt::format("failure {}: {}, {} node(s) down", n, cls(), h.nodes_down)
                            : fmt::format("failure {}: {}", n, cls());
  }
  if (s.category == jc::lost_progress) return fmt::format("lost progress (failure {}: {})", n, cls());
  if (s.category == jc::spare_repair) return fmt::format("swapped-out node(s) in repair (failure {}: {})", n, cls());
  return fmt::format("{} (failure {}: {})",
                     s.category == jc::spare_swap    ? "spare swap"
                     : s.category == jc::repair_wait ? "repair wait"
                                                     : s.category,
                     n, cls());
}

void add_job_span(trace::TraceBuilder& b, trace::TrackId track, const JobSpan& s, const JobTimeline& t,
                  const GoodputInputs& in) {
  const SimTime start = job_time(s.start);
  const SimTime end = job_time(s.start + s.duration);
  std::vector<trace::SpanArg> args;
  std::string cls;
  if (s.interruption >= 0) {
    const SampledInterruption& h = t.interruptions[static_cast<std::size_t>(s.interruption)];
    cls = in.sources[h.source].name;
    args.emplace_back("failure", s.interruption + 1);
    args.emplace_back("class", cls);
    args.emplace_back("nodes_down", h.nodes_down);
  }
  if (s.checkpoints > 0) args.emplace_back("checkpoints", s.checkpoints);
  b.add_span(track, span_name(s, t, in), s.category, start, end - start, args);
}

}  // namespace

trace::Trace job_timeline_trace(const JobTimeline& timeline, const GoodputInputs& in, std::string_view scenario,
                                std::uint64_t seed) {
  trace::TraceBuilder b;
  b.set_metadata("scenario", scenario);
  b.set_metadata("seed", std::to_string(seed));
  b.set_metadata("sample", "0");
  b.set_metadata("duration_s", fmt::format("{}", timeline.duration));
  b.set_metadata("checkpoints_merged", timeline.merged ? "true" : "false");
  b.reserve_spans(timeline.job.size() + timeline.uploads.size() + timeline.spare_repairs.size());
  const trace::TrackId job = b.add_track("job", trace::TrackKind::worker, 0);
  for (const JobSpan& s : timeline.job) add_job_span(b, job, s, timeline, in);
  if (!timeline.uploads.empty()) {
    const trace::TrackId upload = b.add_track("checkpoint upload", trace::TrackKind::worker, 1);
    for (const JobSpan& s : timeline.uploads) add_job_span(b, upload, s, timeline, in);
  }
  // Repairs that overlap go on separate tracks: the first whose last repair has ended.
  std::vector<std::pair<trace::TrackId, double>> spares;  // track, when its last repair ends
  for (const JobSpan& s : timeline.spare_repairs) {
    auto free = std::find_if(spares.begin(), spares.end(), [&](const auto& p) { return p.second <= s.start; });
    if (free == spares.end()) {
      const auto k = static_cast<std::int32_t>(spares.size());
      spares.emplace_back(b.add_track(fmt::format("spares {}", k + 1), trace::TrackKind::worker, 2 + k), 0);
      free = spares.end() - 1;
    }
    add_job_span(b, free->first, s, timeline, in);
    free->second = s.start + s.duration;
  }
  return std::move(b).build();
}

}  // namespace syncsim::run
